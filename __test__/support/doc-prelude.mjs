// The names the documentation's code examples use without defining them, so that every example
// runs as written (`__test__/docs-examples.spec.mjs`). Each stands for what a reader has at hand.
import { readFileSync } from 'node:fs'
import { tool } from 'langchain'
import { z } from 'zod'
import { ScriptedToolModel } from '../fixtures/langchain-agent/scripted-model.mjs'

const request = JSON.parse(readFileSync(new URL('../../data/demo-transcript.json', import.meta.url), 'utf8'))

/** An agent's conversation: the bundled coding-agent session (OpenAI chat-completions messages). */
export const history = request.messages.filter((m) => m.role !== 'system')
/** Its system prompt. */
export const systemPrompt = request.messages.find((m) => m.role === 'system')?.content ?? 'You are a coding agent.'
/** Its tool definitions. */
export const tools = request.tools
/** A LangChain tool. */
export const readFile = tool(async ({ path }) => `// ${path}`, {
  name: 'read_file',
  description: 'Read a file.',
  schema: z.object({ path: z.string() }),
})
/** A LangChain chat model (scripted: two tool calls, then an answer). */
export const model = new ScriptedToolModel({ turns: 2, toolName: 'read_file', args: (turn) => ({ path: `src/${turn}.ts` }), answer: 'Done.' })
/** Your own call to a model that writes a summary. */
export const myModel = async (prompt) => `A summary of ${String(prompt).length} characters of conversation.`
