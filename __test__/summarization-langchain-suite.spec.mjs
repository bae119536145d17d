// LangChain.js's own test suite for `summarizationMiddleware` (langchainjs
// `libs/langchain/src/agents/middleware/tests/summarization.test.ts`), scenario by scenario, run
// against both middlewares: LangChain's (langchain 1.5.14) and ours, each time with LangChain's
// own expectations, and the two agents' final states compared message by message (type and
// content). Where we differ on purpose (docs/semantics.md §7), the test shows both sides: a failing
// summarizer keeps the history (LangChain writes the error as the summary), a tool result that came
// after a user message keeps its call, a message longer than `trimTokensToSummarize` is summarized
// (LangChain writes "too long to summarize" over the history), a model name without a profile is
// not guessed to have a 4,097-token window, and `$&`-style patterns reach the summarizer verbatim.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createAgent, summarizationMiddleware as lcSummarization } from 'langchain'
import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { summarizationMiddleware as ourSummarization } from '../dist/langchain/index.js'

const IMPLEMENTATIONS = { LangChain: lcSummarization, ours: ourSummarization }

/** The agent's model: the scripted responses in turn (LangChain's `FakeToolCallingChatModel`). */
class FakeToolCallingChatModel extends BaseChatModel {
  constructor({ responses }) {
    super({})
    this.responses = responses
    this.i = 0
  }
  _llmType() {
    return 'fake-tool-calling'
  }
  bindTools() {
    return this
  }
  async _generate() {
    const message = this.responses[this.i++ % this.responses.length]
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] }
  }
}

/** LangChain's `createMockSummarizationModel`, recording each call's prompt and config. */
function mockSummarizer(extra = {}) {
  return {
    calls: [],
    async invoke(prompt, config) {
      this.calls.push({ prompt, config })
      return {
        content: prompt.includes('Context Extraction Assistant')
          ? 'Previous conversation covered: project architecture discussion, challenges with scalability, and recommendations for improvement.'
          : 'Summary of previous conversation.',
      }
    },
    getName: () => 'mock-summarizer',
    _modelType: 'mock',
    lc_runnable: true,
    ...extra,
  }
}

/** LangChain's `createMockMainModel`. */
function mainModel() {
  return new FakeToolCallingChatModel({
    responses: [
      new AIMessage('I understand your project. Let me analyze the architecture.'),
      new AIMessage({ content: "I'll check the weather for you.", tool_calls: [{ id: 'call_1', name: 'get_weather', args: { location: 'NYC' } }] }),
      new AIMessage("Based on the weather data, it's sunny in NYC."),
      new AIMessage("Here's my recommendation based on everything we discussed."),
    ],
  })
}

const x = (n) => 'x'.repeat(n)

function sevenMessages() {
  return [
    new HumanMessage(`I'm working on a complex software project. ${x(200)}`),
    new AIMessage(`I understand your project. Let me help. ${x(200)}`),
    new HumanMessage(`Here are more details about the architecture. ${x(200)}`),
    new AIMessage(`That's interesting. Tell me more. ${x(200)}`),
    new HumanMessage(`More information here. ${x(200)}`),
    new AIMessage(`Got it. ${x(200)}`),
    new HumanMessage('What do you recommend?'),
  ]
}

function numbered(pairs, size, last) {
  const out = []
  for (let i = 1; i <= pairs; i++) out.push(new HumanMessage(`Message ${i}: ${x(size)}`), new AIMessage(`Response ${i}: ${x(size)}`))
  if (last) out.push(new HumanMessage(last))
  return out
}

const view = (messages) => messages.map((m) => ({ type: m._getType(), content: m.content, summary: m.additional_kwargs?.lc_source === 'summarization' }))
const isSummaryMessage = (m) => m instanceof HumanMessage && m.additional_kwargs?.lc_source === 'summarization'

/** Runs `scenario` with each middleware, checks LangChain's expectations on each, then compares the two. */
async function bothAgree(scenario) {
  const results = {}
  for (const [name, summarizationMiddleware] of Object.entries(IMPLEMENTATIONS)) {
    results[name] = await scenario(summarizationMiddleware, name)
  }
  if (results.LangChain?.messages && results.ours?.messages) assert.deepEqual(view(results.ours.messages), view(results.LangChain.messages))
  return results
}

describe("LangChain.js's summarization test suite, against LangChain's middleware and ours", () => {
  test('the summarization call is tagged with lc_source metadata', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const summarizer = mockSummarizer()
      await summarizationMiddleware({ model: summarizer, trigger: { tokens: 50 }, keep: { messages: 2 } }).beforeModel(
        { messages: sevenMessages() },
        { context: {} },
      )
      assert.equal(summarizer.calls.length, 1, name)
      assert.equal(summarizer.calls[0].config.metadata.lc_source, 'summarization', name)
    }))

  test("lc_source is merged with the runtime's runnable config (metadata and tags)", () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const summarizer = mockSummarizer()
      const runtime = { context: {}, metadata: { test_parent: 'metadata' }, tags: ['test_parent_tag'] }
      await summarizationMiddleware({ model: summarizer, trigger: { tokens: 50 }, keep: { messages: 2 } }).beforeModel({ messages: sevenMessages() }, runtime)
      const { config } = summarizer.calls[0]
      assert.equal(config.metadata.test_parent, 'metadata', name)
      assert.equal(config.metadata.lc_source, 'summarization', name)
      assert.ok(config.tags.includes('test_parent_tag'), name)
    }))

  for (const [label, options] of Object.entries({
    'trigger / keep': { trigger: { tokens: 50 }, keep: { messages: 2 } },
    'the deprecated maxTokensBeforeSummary / messagesToKeep': { maxTokensBeforeSummary: 50, messagesToKeep: 2 },
  })) {
    test(`a token trigger summarizes in createAgent (${label})`, () =>
      bothAgree(async (summarizationMiddleware, name) => {
        const summarizer = mockSummarizer()
        const agent = createAgent({ model: mainModel(), middleware: [summarizationMiddleware({ model: summarizer, ...options })] })
        const result = await agent.invoke({ messages: sevenMessages() })
        assert.ok(summarizer.calls.length >= 1, name)
        assert.ok(isSummaryMessage(result.messages[0]), name)
        assert.match(result.messages[0].content, /^Here is a summary of the conversation to date:\n\nPrevious conversation covered:/, name)
        assert.deepEqual(result.messages[0].additional_kwargs, { lc_source: 'summarization' }, name)
        assert.ok(result.messages.length <= 4, `${name}: ${result.messages.length} messages`)
        return result
      }))
  }

  test('below the trigger nothing is summarized', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const summarizer = mockSummarizer()
      const agent = createAgent({
        model: mainModel(),
        middleware: [summarizationMiddleware({ model: summarizer, trigger: { tokens: 5000 }, keep: { messages: 10 } })],
      })
      const result = await agent.invoke({ messages: [new HumanMessage('Hello'), new AIMessage('Hi there!'), new HumanMessage('How are you?')] })
      assert.equal(summarizer.calls.length, 0, name)
      assert.equal(result.messages.length, 4, name)
      return result
    }))

  test('a list of triggers is an OR', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const summarizer = mockSummarizer()
      const trigger = [{ messages: 3 }, { tokens: 3000, messages: 6 }]
      const agent = createAgent({ model: mainModel(), middleware: [summarizationMiddleware({ model: summarizer, trigger, keep: { messages: 2 } })] })
      const result = await agent.invoke({
        messages: [
          new HumanMessage('Message 1'),
          new AIMessage('Response 1'),
          new HumanMessage('Message 2'),
          new AIMessage('Response 2'),
          new HumanMessage('Message 3'),
        ],
      })
      assert.ok(summarizer.calls.length >= 1, name)
      assert.ok(isSummaryMessage(result.messages[0]), name)
      return result
    }))

  test('an AI message and its tool result stay together', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const toolCall = new AIMessage({
        content: 'Let me check the weather.',
        tool_calls: [{ id: 'call_123', name: 'get_weather', args: { location: 'Paris' } }],
      })
      const model = new FakeToolCallingChatModel({ responses: [new AIMessage('Based on the weather, I recommend taking an umbrella.')] })
      const agent = createAgent({ model, middleware: [summarizationMiddleware({ model: mockSummarizer(), maxTokensBeforeSummary: 400, messagesToKeep: 4 })] })
      const result = await agent.invoke({
        messages: [
          new HumanMessage(`Old conversation part 1. ${x(100)}`),
          new AIMessage(`Old response 1. ${x(100)}`),
          new HumanMessage(`Old conversation part 2. ${x(100)}`),
          new AIMessage(`Old response 2. ${x(100)}`),
          toolCall,
          new ToolMessage({ content: 'Weather in Paris: Rainy, 15°C', tool_call_id: 'call_123' }),
          new HumanMessage('Thanks for checking the weather!'),
        ],
      })
      assert.ok(
        result.messages.some((m) => m instanceof AIMessage && m.tool_calls?.length > 0),
        name,
      )
      assert.ok(
        result.messages.some((m) => m instanceof ToolMessage && m.tool_call_id === 'call_123'),
        name,
      )
      return result
    }))

  test('keep by tokens', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const model = new FakeToolCallingChatModel({ responses: [new AIMessage('Response')] })
      const agent = createAgent({ model, middleware: [summarizationMiddleware({ model: mockSummarizer(), trigger: { tokens: 50 }, keep: { tokens: 50 } })] })
      const result = await agent.invoke({ messages: numbered(3, 100, 'Final question') })
      assert.ok(isSummaryMessage(result.messages[0]), name)
      assert.match(result.messages[1].content, /^Response 3: x/, name)
      assert.match(result.messages[2].content, /Final question/, name)
      assert.equal(result.messages[3].content, 'Response', name)
      return result
    }))

  test('fraction trigger and keep with a model profile', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const summarizer = mockSummarizer({ profile: { maxInputTokens: 8192 } })
      const model = new FakeToolCallingChatModel({ responses: [new AIMessage('Response')] })
      model.model = 'gpt-5'
      model.modelName = 'gpt-5'
      const agent = createAgent({ model, middleware: [summarizationMiddleware({ model: summarizer, trigger: { fraction: 0.1 }, keep: { fraction: 0.05 } })] })
      const result = await agent.invoke({ messages: numbered(10, 200) })
      assert.ok(summarizer.calls.length >= 1, name)
      assert.ok(isSummaryMessage(result.messages[0]), name)
      return result
    }))

  test('a fraction without a model profile throws when the agent runs, with LangChain’s message', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const agent = createAgent({
        model: mainModel(),
        middleware: [summarizationMiddleware({ model: mockSummarizer(), trigger: { fraction: 0.5 }, keep: { messages: 10 } })],
      })
      await assert.rejects(agent.invoke({ messages: [new HumanMessage('Test message')] }), /Model profile information is required/, name)
    }))

  test('trimTokensToSummarize bounds what the summarizer reads (the newest messages)', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const summarizer = mockSummarizer()
      const agent = createAgent({
        model: mainModel(),
        middleware: [summarizationMiddleware({ model: summarizer, trigger: { tokens: 50 }, keep: { messages: 3 }, trimTokensToSummarize: 100 })],
      })
      const result = await agent.invoke({ messages: numbered(3, 200, 'Final question') })
      assert.equal(summarizer.calls.length, 1, name)
      const { prompt } = summarizer.calls[0]
      assert.ok(prompt.includes('Messages to summarize:'), name)
      assert.ok(!prompt.includes('Human: Message 1: xxxxxxxxxxxxxxx'), name)
      assert.ok(prompt.includes('AI: Response 2: xxxxxxxxxxxxxxx'), name)
      assert.ok(!prompt.includes('Human: Message 3: xxxxxxxxxxxxxxx'), name)
      assert.equal(result.messages.length, 5, name)
      assert.match(result.messages[1].content, /^Message 3: x/, name)
      return result
    }))

  test('without trimTokensToSummarize (default 4000) every replaced message reaches the summarizer', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const summarizer = mockSummarizer()
      const agent = createAgent({
        model: mainModel(),
        middleware: [summarizationMiddleware({ model: summarizer, trigger: { tokens: 50 }, keep: { messages: 2 } })],
      })
      const result = await agent.invoke({ messages: numbered(3, 200, 'Final question') })
      const { prompt } = summarizer.calls[0]
      for (const line of ['Human: Message 1: xxxxxxxxxxxxxxx', 'AI: Response 2: xxxxxxxxxxxxxxx', 'Human: Message 3: xxxxxxxxxxxxxxx'])
        assert.ok(prompt.includes(line), `${name}: ${line}`)
      assert.ok(!prompt.includes('AI: Response 3: xxxxxxxxxxxxxxx'), name)
      assert.equal(result.messages.length, 4, name)
      return result
    }))

  test('a custom tokenCounter is used', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const summarizer = mockSummarizer()
      let called = 0
      const tokenCounter = (messages) => {
        called++
        return messages.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.split(' ').length : 0), 0)
      }
      const agent = createAgent({
        model: mainModel(),
        middleware: [summarizationMiddleware({ model: summarizer, trigger: { tokens: 50 }, keep: { messages: 2 }, tokenCounter })],
      })
      const long =
        'This is a long message with many words that should trigger the summarization because it has more than fifty words in total when combined with other messages in the conversation history and this sentence adds even more words to ensure we exceed the threshold.'
      const result = await agent.invoke({
        messages: [
          new HumanMessage(long),
          new AIMessage(`Another ${long}`),
          new HumanMessage('Another message with some words.'),
          new AIMessage('Another response with some words.'),
          new HumanMessage('Short question?'),
        ],
      })
      assert.ok(called > 0, name)
      assert.ok(summarizer.calls.length >= 1, name)
      return result
    }))

  test('an empty conversation', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const summarizer = mockSummarizer()
      const agent = createAgent({
        model: mainModel(),
        middleware: [summarizationMiddleware({ model: summarizer, maxTokensBeforeSummary: 100, messagesToKeep: 5 })],
      })
      const result = await agent.invoke({ messages: [] })
      assert.ok(result.messages.length > 0, name)
      assert.equal(summarizer.calls.length, 0, name)
      return result
    }))

  test('options are validated when the middleware is built', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const model = mockSummarizer()
      summarizationMiddleware({ model, trigger: { tokens: 1000 }, keep: { messages: 10 } })
      summarizationMiddleware({ model, trigger: { fraction: 0.8 }, keep: { tokens: 5000 } })
      summarizationMiddleware({ model, trigger: { tokens: 1000 }, keep: { messages: 0 } })
      assert.throws(() => summarizationMiddleware({ model, trigger: { fraction: 1.5 }, keep: { messages: 10 } }), name)
      assert.throws(() => summarizationMiddleware({ model, trigger: { tokens: -100 }, keep: { messages: 10 } }), name)
      assert.throws(() => summarizationMiddleware({ model, trigger: { tokens: 1000 }, keep: { messages: 10, tokens: 5000 } }), name)
    }))

  test('no trigger: nothing is summarized', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const summarizer = mockSummarizer()
      const agent = createAgent({ model: mainModel(), middleware: [summarizationMiddleware({ model: summarizer, keep: { messages: 10 } })] })
      const messages = [new HumanMessage(`Message 1: ${x(500)}`), new AIMessage(`Response 1: ${x(500)}`), new HumanMessage(`Message 2: ${x(500)}`)]
      const result = await agent.invoke({ messages })
      assert.equal(summarizer.calls.length, 0, name)
      assert.ok(result.messages.length > messages.length, name)
      return result
    }))

  test('the kept messages never start with an AI message carrying tool calls', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const agent = createAgent({
        model: mainModel(),
        middleware: [summarizationMiddleware({ model: mockSummarizer(), trigger: { tokens: 100 }, keep: { messages: 4 } })],
      })
      const result = await agent.invoke({
        messages: [
          new HumanMessage(`First message with some content to take up tokens. ${x(400)}`),
          new AIMessage(`First response. ${x(400)}`),
          new HumanMessage(`Second message with more content to build up tokens. ${x(400)}`),
          new AIMessage(`Second response. ${x(400)}`),
          new HumanMessage(`Third message with even more content. ${x(400)}`),
          new AIMessage(`Third response. ${x(400)}`),
          new HumanMessage('Let me search for information.'),
          new AIMessage({ content: "I'll search for that.", tool_calls: [{ id: 'call_1', name: 'search', args: { query: 'test' } }] }),
          new ToolMessage({ content: 'Search results', tool_call_id: 'call_1' }),
          new HumanMessage('What did you find?'),
        ],
      })
      const at = result.messages.findIndex((m) => String(m.content).includes('summary'))
      assert.ok(at >= 0, name)
      const first = result.messages[at + 1]
      assert.ok(!(first instanceof AIMessage && first.tool_calls?.length), name)
      return result
    }))

  for (const [label, summaryPrefix] of Object.entries({
    'the default summaryPrefix': undefined,
    'a custom summaryPrefix': 'Custom summary prefix for testing:',
  })) {
    test(label, () =>
      bothAgree(async (summarizationMiddleware, name) => {
        const agent = createAgent({
          model: mainModel(),
          middleware: [summarizationMiddleware({ model: mockSummarizer(), trigger: { tokens: 50 }, keep: { messages: 2 }, summaryPrefix })],
        })
        const result = await agent.invoke({ messages: numbered(2, 200, 'Final question') })
        assert.ok(result.messages[0].content.startsWith(`${summaryPrefix ?? 'Here is a summary of the conversation to date:'}\n\n`), name)
        assert.deepEqual(result.messages[0].additional_kwargs, { lc_source: 'summarization' }, name)
        return result
      }),
    )
  }

  test('a streaming summarizer is kept out of stream({ streamMode: "messages" })', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const SUMMARY = 'INTERNAL_SUMMARY_OUTPUT'
      const agent = createAgent({
        model: new FakeToolCallingChatModel({ responses: [new AIMessage('Main model answer.')] }),
        middleware: [summarizationMiddleware({ model: new FakeListChatModel({ responses: [SUMMARY] }), trigger: { tokens: 50 }, keep: { messages: 2 } })],
      })
      const texts = []
      for await (const [chunk] of await agent.stream({ messages: numbered(2, 200, 'Final question') }, { streamMode: 'messages' }))
        texts.push(String(chunk.content))
      assert.ok(texts.includes('Main model answer.'), name)
      assert.ok(!texts.join('').includes(SUMMARY), `${name}: the summary was streamed`)
      assert.ok(!texts.some((t) => t.includes('Here is a summary')), name)
    }))

  test('a cutoff landing on a tool message moves back to its AI message', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const model = new FakeToolCallingChatModel({ responses: [new AIMessage('Final response')] })
      const agent = createAgent({ model, middleware: [summarizationMiddleware({ model: mockSummarizer(), trigger: { tokens: 100 }, keep: { tokens: 150 } })] })
      const result = await agent.invoke({
        messages: [
          new HumanMessage(x(300)),
          new AIMessage({ content: 'y'.repeat(200), tool_calls: [{ id: 'call_preserve', name: 'test_tool', args: { test: true } }] }),
          new ToolMessage({ content: 'z'.repeat(50), tool_call_id: 'call_preserve', name: 'test_tool' }),
          new HumanMessage('a'.repeat(180)),
          new HumanMessage('b'.repeat(160)),
        ],
      })
      const kept = result.messages.slice(result.messages.findIndex(isSummaryMessage) + 1)
      assert.ok(
        kept.some((m) => m instanceof AIMessage && m.tool_calls?.length > 0),
        name,
      )
      assert.ok(
        kept.some((m) => m instanceof ToolMessage && m.tool_call_id === 'call_preserve'),
        name,
      )
      return result
    }))

  test('ten parallel tool calls stay with their AI message', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const model = new FakeToolCallingChatModel({ responses: [new AIMessage('All files read and summarized')] })
      const agent = createAgent({ model, middleware: [summarizationMiddleware({ model: mockSummarizer(), trigger: { tokens: 100 }, keep: { messages: 5 } })] })
      const calls = Array.from({ length: 10 }, (_, i) => ({ id: `call_${i}`, name: 'read_file', args: { file: `file${i}.txt` } }))
      const result = await agent.invoke({
        messages: [
          new HumanMessage(x(500)),
          new AIMessage({ content: "I'll read all 10 files", tool_calls: calls }),
          ...calls.map((c) => new ToolMessage({ content: `Contents of ${c.args.file}`, tool_call_id: c.id, name: c.name })),
          new HumanMessage('Now summarize them'),
        ],
      })
      const ai = result.messages.find((m) => m instanceof AIMessage && m.tool_calls?.length > 0)
      if (ai) assert.equal(result.messages.filter((m) => m instanceof ToolMessage).length, 10, name)
      return result
    }))

  test('the prompt lists the messages as Human: / AI: / Tool: lines, tool calls included, no JSON', () =>
    bothAgree(async (summarizationMiddleware, name) => {
      const summarizer = mockSummarizer({ profile: {} })
      const agent = createAgent({
        model: mainModel(),
        middleware: [summarizationMiddleware({ model: summarizer, trigger: { tokens: 50 }, keep: { messages: 1 } })],
      })
      await agent.invoke({
        messages: [
          new HumanMessage('What is the weather in NYC?'),
          new AIMessage({ content: 'Let me check the weather for you.', tool_calls: [{ name: 'get_weather', args: { city: 'NYC' }, id: 'call_123' }] }),
          new ToolMessage({ content: '72F and sunny', tool_call_id: 'call_123', name: 'get_weather' }),
          new AIMessage({ content: `It is 72F and sunny in NYC! ${x(200)}` }),
          new HumanMessage('Thanks!'),
        ],
      })
      const { prompt } = summarizer.calls[0]
      for (const s of ['Human:', 'AI:', 'Tool:', 'get_weather']) assert.ok(prompt.includes(s), `${name}: ${s}`)
      for (const s of ['"type": "human"', '"additional_kwargs"', '"response_metadata"']) assert.ok(!prompt.includes(s), `${name}: ${s}`)
    }))
})

describe('where we differ on purpose (docs/semantics.md §7)', () => {
  test('a summarizer that throws: LangChain writes the error over the history as the summary, we keep the history', async () => {
    const failing = {
      async invoke() {
        throw new Error('summarizer unavailable (503)')
      },
    }
    const messages = numbered(3, 200, 'Final question')
    const originalWarn = console.warn
    console.warn = () => {}
    try {
      const theirs = await createAgent({
        model: mainModel(),
        middleware: [lcSummarization({ model: failing, trigger: { tokens: 50 }, keep: { messages: 2 } })],
      }).invoke({ messages })
      assert.match(
        theirs.messages[0].content,
        /^Here is a summary of the conversation to date:\n\nError generating summary: Error: summarizer unavailable \(503\)/,
      )
      assert.equal(theirs.messages.length, 4)
      const ours = await createAgent({
        model: mainModel(),
        middleware: [ourSummarization({ model: failing, trigger: { tokens: 50 }, keep: { messages: 2 } })],
      }).invoke({ messages })
      assert.deepEqual(view(ours.messages.slice(0, messages.length)), view(messages))
      assert.equal(ours.messages.filter(isSummaryMessage).length, 0)
    } finally {
      console.warn = originalWarn
    }
  })

  test('a result that came after a user message: LangChain summarizes its call and keeps it (an orphan), we keep the pair', async () => {
    const messages = [
      new HumanMessage({ content: `q0 ${x(300)}`, id: 'h0' }),
      new AIMessage({ content: 'a0', id: 'a0' }),
      new AIMessage({ content: '', id: 'a1', tool_calls: [{ id: 'c1', name: 'search', args: {} }] }),
      new HumanMessage({ content: 'still there?', id: 'h1' }),
      new ToolMessage({ content: 'late result', tool_call_id: 'c1', id: 't1' }),
      new AIMessage({ content: 'done', id: 'a2' }),
      new HumanMessage({ content: 'thanks', id: 'h2' }),
    ]
    const kept = {}
    for (const [name, summarizationMiddleware] of Object.entries(IMPLEMENTATIONS)) {
      const update = await summarizationMiddleware({ model: mockSummarizer(), trigger: { messages: 2 }, keep: { messages: 4 } }).beforeModel(
        { messages: [...messages] },
        { context: {} },
      )
      kept[name] = update.messages.slice(2).map((m) => m.id)
    }
    assert.deepEqual(kept.LangChain, ['h1', 't1', 'a2', 'h2'])
    assert.deepEqual(kept.ours, ['a1', 'h1', 't1', 'a2', 'h2'])
  })

  test('a model name without a profile: LangChain assumes a 4,097-token window, we say the limit is unknown', async () => {
    const messages = []
    for (let i = 0; i < 100; i++) messages.push(new HumanMessage(`Message ${i}: ${x(200)}`), new AIMessage(`Response ${i}: ${x(200)}`))
    const options = () => ({ model: mockSummarizer({ model: 'claude-sonnet-4-20250514' }), trigger: { fraction: 0.5 }, keep: { fraction: 0.05 } })
    const theirs = await createAgent({ model: mainModel(), middleware: [lcSummarization(options())] }).invoke({ messages })
    // LangChain: 5 messages, summarized against a window it guessed (claude-sonnet-4 has 200,000 tokens).
    assert.equal(theirs.messages.length, 5)
    await assert.rejects(
      createAgent({ model: mainModel(), middleware: [ourSummarization(options())] }).invoke({ messages }),
      /Model profile information is required.*set `maxInputTokens`/,
    )
    // With the limit given (here a 16,000-token window), ours summarizes against it: 5% is 800 tokens kept.
    const ours = await createAgent({ model: mainModel(), middleware: [ourSummarization({ ...options(), maxInputTokens: 16_000 })] }).invoke({ messages })
    assert.ok(isSummaryMessage(ours.messages[0]))
    assert.ok(ours.messages.length > 10, `${ours.messages.length} messages`)
  })

  test('a replaced message longer than trimTokensToSummarize, or a bound of 0: LangChain writes "too long to summarize" without asking, we summarize', async () => {
    for (const [trimTokensToSummarize, content] of [
      [100, x(2000)],
      [0, 'q0'],
    ]) {
      const results = {}
      for (const [name, summarizationMiddleware] of Object.entries(IMPLEMENTATIONS)) {
        const model = mockSummarizer()
        const update = await summarizationMiddleware({ model, trigger: { messages: 2 }, keep: { messages: 1 }, trimTokensToSummarize }).beforeModel(
          { messages: [new HumanMessage({ content, id: 'a' }), new HumanMessage({ content: 'q1', id: 'b' })] },
          { context: {} },
        )
        results[name] = { summary: update.messages[1].content, asked: model.calls.length, prompt: model.calls[0]?.prompt }
      }
      const where = `trimTokensToSummarize ${trimTokensToSummarize}`
      assert.equal(results.LangChain.asked, 0, where)
      assert.match(results.LangChain.summary, /Previous conversation was too long to summarize\.$/, where)
      assert.equal(results.ours.asked, 1, where)
      assert.match(results.ours.summary, /\n\nSummary of previous conversation\.$|Previous conversation covered/, where)
      // The bound applies to what is quoted: 100 tokens is about 400 characters of the 2,000.
      if (trimTokensToSummarize > 0) assert.ok(results.ours.prompt.includes(`Human: ${x(400)}`) && !results.ours.prompt.includes(x(401)), where)
    }
  })

  test("text that looks like a replacement pattern ($&, $`, $') reaches the summarizer verbatim; LangChain rewrites it", async () => {
    const content = "price: $& and $' and $` $$"
    const prompts = {}
    for (const [name, summarizationMiddleware] of Object.entries(IMPLEMENTATIONS)) {
      const model = mockSummarizer()
      await summarizationMiddleware({ model, trigger: { messages: 2 }, keep: { messages: 1 }, summaryPrompt: 'BEGIN {messages} END' }).beforeModel(
        { messages: [new HumanMessage({ content, id: 'a' }), new AIMessage({ content: 'ok', id: 'b' }), new HumanMessage({ content: 'q', id: 'c' })] },
        { context: {} },
      )
      prompts[name] = model.calls[0].prompt
    }
    assert.equal(prompts.ours, `BEGIN Human: ${content}\nAI: ok END`)
    assert.notEqual(prompts.LangChain, prompts.ours)
    assert.ok(!prompts.LangChain.includes(content))
  })
})
