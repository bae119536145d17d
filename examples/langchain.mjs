// context-editor with a LangChain.js v1 agent.
//
//   OPENAI_API_KEY=... node examples/langchain.mjs
//
// The agent reads many large files. Once the conversation reaches 100k tokens, every model call
// gets old `read_file` results replaced by "[cleared]" (the newest 3 stay), while the agent's
// state, and so `invoke()`'s result and any checkpoint, keeps every file in full.
import { createAgent, tool } from 'langchain'
import { z } from 'zod'
import { contextEditingMiddleware } from 'context-editor/langchain'

export const readFile = tool(
  async ({ path }) => `// ${path}\n${'export const answer = 42;\n'.repeat(2000)}`, // ~13k tokens per file
  {
    name: 'read_file',
    description: 'Read a source file of the repository under review.',
    schema: z.object({ path: z.string().describe('Path relative to the repository root') }),
  },
)

export function buildAgent(model, { onReport } = {}) {
  return createAgent({
    model,
    tools: [readFile],
    systemPrompt: 'You review code. Read the files you need, then summarize the problems you found.',
    middleware: [
      contextEditingMiddleware({
        trigger: { tokens: 100000 }, // or { fraction: 0.8 }, or { messages: 50 }; a list = any of them
        keep: { messages: 3 }, // keep the newest 3 tool results
        excludeTools: [], // tools whose results are never cleared
        placeholder: '[cleared]',
        clearToolInputs: false,
        tokenCountMethod: 'approx', // 'model' = exact tiktoken counts, offline
        onReport, // optional: what each call cleared, token counts before/after, warnings
      }),
    ],
  })
}

async function main() {
  const { ChatOpenAI } = await import('@langchain/openai')
  const agent = buildAgent(new ChatOpenAI({ model: 'gpt-4o-mini' }), {
    onReport: (r) => r.triggered && console.error(`cleared ${r.cleared.length} tool results: ${r.tokensBefore} -> ${r.tokensAfter} tokens`),
  })
  const result = await agent.invoke(
    { messages: [{ role: 'user', content: 'Read src/a.ts through src/j.ts one by one and review them.' }] },
    { recursionLimit: 100 },
  )
  console.log(result.messages.at(-1).content)
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main().catch((e) => {
    console.error(e)
    process.exitCode = 1
  })
}
