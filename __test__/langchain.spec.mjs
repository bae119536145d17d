// context-editor/langchain inside a real LangChain v1 `createAgent` run, against LangChain's own
// `contextEditingMiddleware`. The model is a real `BaseChatModel` subclass that records what it is
// sent; the tool returns large outputs.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createAgent, tool, ClearToolUsesEdit, contextEditingMiddleware as langchainContextEditing } from 'langchain'
import { z } from 'zod'
import { contextEditingMiddleware } from 'context-editor/langchain'
import { ContextEditorError } from 'context-editor'
import { ScriptedToolModel } from './fixtures/langchain-agent/scripted-model.mjs'

const TURNS = 40
const OUTPUT = 4000 // characters per tool result (~1,000 tokens)

const fetchPage = tool(async ({ page }) => `page ${page}\n${'lorem ipsum '.repeat(OUTPUT / 12)}`, {
  name: 'fetch_page',
  description: 'Fetch one page of the report.',
  schema: z.object({ page: z.number() }),
})

function scriptedModel(turns = TURNS) {
  return new ScriptedToolModel({ turns, toolName: 'fetch_page', args: (turn) => ({ page: turn }), answer: 'All pages read.' })
}

async function run(middleware, model = scriptedModel()) {
  const agent = createAgent({ model, tools: [fetchPage], systemPrompt: 'Read every page, then answer.', middleware: [middleware] })
  const result = await agent.invoke({ messages: [{ role: 'user', content: 'Read the report.' }] }, { recursionLimit: 4 * TURNS + 10 })
  return { model, result }
}

const toolResults = (messages) => messages.filter((m) => m.type === 'tool' || m._getType?.() === 'tool')
const isCleared = (m) => m.content === '[cleared]'

describe('createAgent + contextEditingMiddleware from context-editor/langchain', () => {
  test(`${TURNS} tool-calling turns: the model gets cleared context after the trigger, the state keeps everything`, async () => {
    const reports = []
    const { model, result } = await run(contextEditingMiddleware({ trigger: { tokens: 20000 }, keep: { messages: 3 }, onReport: (r) => reports.push(r) }))
    assert.equal(result.messages.at(-1).content, 'All pages read.', 'the run completes')
    assert.equal(model.calls.length, TURNS + 1)
    assert.equal(reports.length, TURNS + 1)

    let firstTriggered = -1
    model.calls.forEach((input, call) => {
      const results = toolResults(input)
      assert.equal(results.length, call, `call ${call} sees ${call} tool results`)
      const report = reports[call]
      if (report.triggered) {
        if (firstTriggered < 0) firstTriggered = call
        assert.ok(report.tokensBefore >= 20000)
        const cleared = results.filter(isCleared).length
        assert.equal(cleared, results.length - 3, `call ${call}: all but the newest 3 results are cleared`)
        assert.ok(results.slice(-3).every((m) => !isCleared(m)))
        assert.ok(report.tokensAfter < report.tokensBefore)
      } else {
        assert.ok(report.tokensBefore < 20000)
        assert.equal(results.filter(isCleared).length, 0, `call ${call}: nothing cleared below the trigger`)
      }
    })
    assert.ok(firstTriggered > 10 && firstTriggered < 30, `the trigger is reached mid-run (call ${firstTriggered})`)
    assert.ok(
      reports.slice(firstTriggered).every((r) => r.triggered),
      'once over the trigger, every later call is edited',
    )

    const stored = toolResults(result.messages)
    assert.equal(stored.length, TURNS, 'the final state holds every tool result')
    for (const [k, m] of stored.entries()) {
      assert.ok(m.content.startsWith(`page ${k + 1}\n`) && m.content.length > OUTPUT, `tool result ${k} is stored in full`)
      assert.equal(m.response_metadata?.context_editing, undefined)
    }
  })

  test("same model inputs as LangChain's own contextEditingMiddleware (approx mode), swapping only the import", async () => {
    // A `messages` trigger makes the comparison exact. With a `tokens` trigger the two differ on
    // purpose: LangChain edits the agent state in place, so from the first clearing on it counts
    // its own placeholders (the request shrinks below the trigger, grows back, clears again),
    // while context-editor counts the real history on every call and also counts the system
    // prompt and tool schemas the model receives.
    for (const options of [
      { trigger: { messages: 30 }, keep: { messages: 3 } },
      { trigger: [{ messages: 50 }, { messages: 41 }], keep: { messages: 5 }, clearToolInputs: true, placeholder: '[gone]' },
    ]) {
      const ours = await run(contextEditingMiddleware({ edits: [new ClearToolUsesEdit(options)] }))
      const theirs = await run(langchainContextEditing({ edits: [new ClearToolUsesEdit(options)] }))
      const flat = await run(contextEditingMiddleware(options))
      assert.equal(theirs.model.calls.length, TURNS + 1)
      assert.ok(
        theirs.model.calls.some((input) => toolResults(input).some((m) => m.content === (options.placeholder ?? '[cleared]'))),
        'LangChain cleared something',
      )
      assert.deepEqual(ours.model.calls, theirs.model.calls, JSON.stringify(options))
      assert.deepEqual(flat.model.calls, theirs.model.calls, `flat options: ${JSON.stringify(options)}`)

      // ...but LangChain's in-place edits leave placeholders in the agent's final state; ours do not.
      assert.ok(toolResults(theirs.result.messages).some((m) => m.content === (options.placeholder ?? '[cleared]')))
      assert.ok(toolResults(ours.result.messages).every((m) => m.content.length > OUTPUT))
    }
  })

  test("maxInputTokens comes from the model's profile (fraction trigger)", async () => {
    class ProfiledModel extends ScriptedToolModel {
      get profile() {
        return { maxInputTokens: 16000 }
      }
    }
    const reports = []
    const model = new ProfiledModel({ turns: 20, toolName: 'fetch_page', args: (turn) => ({ page: turn }) })
    await run(contextEditingMiddleware({ trigger: { fraction: 0.5 }, keep: { messages: 2 }, onReport: (r) => reports.push(r) }), model)
    assert.ok(reports.every((r) => r.maxInputTokens === 16000))
    const first = reports.findIndex((r) => r.triggered)
    assert.ok(first > 0, 'the fraction trigger fires')
    assert.ok(reports[first].tokensBefore >= 8000 && reports[first - 1].tokensBefore < 8000)
    // An explicit maxInputTokens wins over the profile.
    const explicit = []
    await run(
      contextEditingMiddleware({ trigger: { fraction: 0.5 }, maxInputTokens: 100000, onReport: (r) => explicit.push(r) }),
      new ProfiledModel({ turns: 3, toolName: 'fetch_page', args: () => ({ page: 1 }) }),
    )
    assert.ok(explicit.every((r) => r.maxInputTokens === 100000 && !r.triggered))
  })

  test('invalid config fails when the middleware is created, naming the field', () => {
    const cases = [
      [{ keep: { messages: -1 } }, /keep\.messages/],
      [{ trigger: { tokens: '100k' } }, /trigger\.tokens: expected a number/],
      [{ tokenCountMethod: 'tiktoken' }, /tokenCountMethod/],
      [{ edits: [{ apply() {} }] }, /edits\[0\]: .* is not supported/],
      [{ edits: 'clear' }, /edits: expected a list/],
      [{ maxInputTokens: 0 }, /maxInputTokens: expected a positive integer/],
      [{ trigger: { tokens: Infinity } }, /trigger.tokens: expected a finite number/],
      [{ onReport: 'log' }, /onReport: expected a function/],
    ]
    for (const [config, message] of cases) {
      assert.throws(
        () => contextEditingMiddleware(config),
        (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && message.test(e.message),
        JSON.stringify(config),
      )
    }
  })

  test('the middleware is a LangChain middleware named ContextEditingMiddleware with a wrapModelCall hook', () => {
    const mw = contextEditingMiddleware()
    assert.equal(mw.name, 'ContextEditingMiddleware')
    assert.equal(typeof mw.wrapModelCall, 'function')
    assert.equal(mw.beforeModel, undefined, 'the stored history is never rewritten')
  })
})
