#!/usr/bin/env node
// Seeded generator of realistic agent conversations as real @langchain/core messages.
//
// A conversation is a system prompt, tool definitions and a list of episodes: a user request, one to
// three tool-calling AI turns (1–3 calls each) followed by their tool results (200 B – 30 KB of code,
// JSON, logs, markdown, some of it CJK), and a text answer. At 2,000 messages that is ~4 MB with
// ~1,000 tool results.
//
//   node benchmark/generate.mjs --seed 42 --messages 2000            # prints stats
//   node benchmark/generate.mjs --seed 42 --messages 2000 --out c.json  # also writes StoredMessage JSON
//
// Programmatic use: `generateConversation({ seed, messages })` → { systemPrompt, tools, messages, stats }.

import { writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { AIMessage, HumanMessage, ToolMessage, mapChatMessagesToStoredMessages } from '@langchain/core/messages'

/** mulberry32: small, fast, good enough for test data. */
export function rng(seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1))
  const pick = (arr) => arr[Math.floor(next() * arr.length)]
  return { next, int, pick }
}

const WORDS = (
  'the a an of to in for on with by from into over after before while when which that this these those ' +
  'request response handler server client cache token budget history message context window model agent ' +
  'tool result error retry timeout config option value field index offset length buffer stream parser ' +
  'module package build test deploy release branch commit merge review latency throughput memory thread ' +
  'queue worker batch schema table column query transaction migration user session account invoice order ' +
  'payment shipping inventory report metric dashboard alert incident runbook service endpoint route ' +
  'returns handles updates creates removes validates parses renders loads stores fetches computes checks ' +
  'quickly safely lazily eagerly correctly incrementally concurrently idempotent stable deterministic'
).split(' ')

const IDENTS = (
  'parseConfig loadUser fetchOrders computeTotal validateInput renderPage tokenize flushBuffer retryWithBackoff ' +
  'createSession closeConnection applyMigration resolvePath normalizeHeaders encodeBody decodeFrame ' +
  'scheduleJob cancelTimer readChunk writeChunk hashKey evictEntry mergeRanges splitLines formatDate ' +
  'handleRequest buildIndex queryTable updateCache emitMetric trimHistory countTokens'
).split(' ')

const CJK = [
  '这个函数负责解析配置文件并返回默认值。',
  '如果缓存中没有找到对应的键，就重新计算并写入。',
  '请注意：在高并发情况下需要加锁以避免数据竞争。',
  '用户反馈页面加载速度较慢，我们正在排查原因。',
  'このモジュールは設定ファイルを読み込み、検証します。',
  'エラーが発生した場合は、三回まで再試行してください。',
  '데이터베이스 연결이 끊어지면 자동으로 다시 연결합니다.',
  '测试全部通过，覆盖率为百分之九十二。',
  '部署完成后请检查监控面板上的错误率和延迟。',
  'ログの出力形式はJSONで、タイムスタンプはUTCです。',
]

const TOOLS = [
  {
    name: 'read_file',
    description: 'Read a file from the repository and return its contents.',
    parameters: { type: 'object', properties: { path: { type: 'string' }, startLine: { type: 'integer' } }, required: ['path'] },
  },
  {
    name: 'search_code',
    description: 'Search the codebase for a pattern; returns matches as JSON.',
    parameters: { type: 'object', properties: { query: { type: 'string' }, maxResults: { type: 'integer' } }, required: ['query'] },
  },
  {
    name: 'run_command',
    description: 'Run a shell command in the sandbox and return its output.',
    parameters: { type: 'object', properties: { command: { type: 'string' }, timeoutSeconds: { type: 'integer' } }, required: ['command'] },
  },
  {
    name: 'fetch_docs',
    description: 'Fetch a documentation page as markdown.',
    parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
  },
  {
    name: 'query_db',
    description: 'Run a read-only SQL query and return rows as JSON.',
    parameters: { type: 'object', properties: { sql: { type: 'string' }, limit: { type: 'integer' } }, required: ['sql'] },
  },
  {
    name: 'read_ticket',
    description: 'Read a support ticket (often in Chinese or Japanese) as markdown.',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
]

function sentence(r, min = 6, max = 18) {
  const n = r.int(min, max)
  const w = new Array(n)
  for (let i = 0; i < n; i++) w[i] = r.pick(WORDS)
  const s = w.join(' ')
  return s[0].toUpperCase() + s.slice(1) + '.'
}

function codeText(r, size) {
  const lines = []
  let len = 0
  const lang = r.next() < 0.5 ? 'ts' : r.next() < 0.5 ? 'rs' : 'py'
  while (len < size) {
    const f = r.pick(IDENTS)
    const a = r.pick(IDENTS)
    const b = r.pick(WORDS)
    let block
    if (lang === 'ts') {
      block = `export async function ${f}(${b}: string, opts: Options = {}): Promise<${r.pick(['Result', 'void', 'number'])}> {\n  // ${sentence(r, 4, 10)}\n  const ${b}Value = await ${a}(${b}, { retries: ${r.int(1, 5)} })\n  if (!${b}Value) throw new Error('${f}: missing ${b}')\n  return ${b}Value.length > ${r.int(0, 4096)} ? ${a}(${b}Value) : ${b}Value\n}\n`
    } else if (lang === 'rs') {
      block = `/// ${sentence(r, 4, 10)}\npub fn ${f.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())}(${b}: &str) -> Result<u64, Error> {\n    let n = ${a.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())}(${b})?;\n    if n > ${r.int(1, 100000)} {\n        return Err(Error::TooLarge(n));\n    }\n    Ok(n * ${r.int(2, 9)})\n}\n`
    } else {
      block = `def ${f.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())}(${b}, *, limit=${r.int(1, 500)}):\n    """${sentence(r, 4, 10)}"""\n    rows = [x for x in ${b} if x.score > ${(r.next() * 10).toFixed(2)}]\n    return rows[:limit]\n`
    }
    if (r.next() < 0.03) block += `// ${r.pick(CJK)}\n`
    lines.push(block)
    len += block.length + 1
  }
  return lines.join('\n')
}

function jsonText(r, size) {
  const rows = []
  let len = 2
  let id = r.int(1000, 90000)
  while (len < size) {
    const row = {
      id: id++,
      file: `src/${r.pick(IDENTS)}/${r.pick(WORDS)}.ts`,
      line: r.int(1, 2000),
      score: Math.round(r.next() * 1000) / 1000,
      status: r.pick(['ok', 'pending', 'failed', 'skipped']),
      snippet: sentence(r, 3, 12),
      tags: [r.pick(WORDS), r.pick(WORDS)],
    }
    if (r.next() < 0.05) row.note = r.pick(CJK)
    const s = JSON.stringify(row)
    rows.push(s)
    len += s.length + 2
  }
  return JSON.stringify(JSON.parse(`[${rows.join(',')}]`), null, r.next() < 0.5 ? 2 : undefined)
}

function logText(r, size) {
  const out = []
  let len = 0
  let t = Date.UTC(2025, 0, 1) + r.int(0, 1e9)
  while (len < size) {
    t += r.int(1, 5000)
    const lvl = r.pick(['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'])
    const line = `${new Date(t).toISOString()} ${lvl.padEnd(5)} [${r.pick(IDENTS)}] ${sentence(r, 4, 14)} latency_ms=${r.int(1, 900)} req=${r.int(1e5, 1e6).toString(16)}`
    out.push(line)
    len += line.length + 1
  }
  return out.join('\n')
}

function markdownText(r, size, cjk) {
  const out = []
  let len = 0
  while (len < size) {
    let block
    const k = r.next()
    if (k < 0.15) block = `## ${sentence(r, 2, 5).slice(0, -1)}`
    else if (k < 0.3) block = `- ${sentence(r, 4, 10)}\n- ${sentence(r, 4, 10)}\n- \`${r.pick(IDENTS)}()\` ${sentence(r, 3, 6)}`
    else if (k < 0.38) block = '```ts\n' + codeText(r, 200) + '```'
    else if (cjk && k < 0.8) block = r.pick(CJK) + r.pick(CJK) + r.pick(CJK)
    else block = `${sentence(r)} ${sentence(r)} ${sentence(r)}`
    out.push(block)
    len += block.length + 2
  }
  return out.join('\n\n')
}

/** Tool-result size: 200 B – 30 KB, skewed towards small (mean ≈ 4 KB). */
function resultSize(r) {
  return Math.round(200 * Math.pow(150, Math.pow(r.next(), 2)))
}

function toolCall(r, name, n) {
  const id = `call_${n.toString(36).padStart(6, '0')}${r.int(0, 1e9).toString(36)}`
  let args
  switch (name) {
    case 'read_file':
      args = { path: `src/${r.pick(IDENTS)}/${r.pick(WORDS)}.${r.pick(['ts', 'rs', 'py'])}`, startLine: r.int(1, 400) }
      break
    case 'search_code':
      args = { query: `${r.pick(IDENTS)} ${r.pick(WORDS)}`, maxResults: r.int(10, 200) }
      break
    case 'run_command':
      args = {
        command: r.pick(['npm test', 'cargo test -p core', 'git log --oneline -20', 'kubectl logs api-7f9c', 'pytest -x tests/']),
        timeoutSeconds: r.int(10, 600),
      }
      break
    case 'fetch_docs':
      args = { url: `https://docs.example.com/${r.pick(WORDS)}/${r.pick(IDENTS)}` }
      break
    case 'query_db':
      args = { sql: `SELECT * FROM ${r.pick(['orders', 'users', 'events', 'invoices'])} WHERE ${r.pick(WORDS)}_id = ${r.int(1, 99999)} LIMIT 100`, limit: 100 }
      break
    default:
      args = { id: `TICKET-${r.int(1000, 9999)}` }
  }
  return { id, name, args, type: 'tool_call' }
}

function toolResult(r, name, size) {
  switch (name) {
    case 'read_file':
      return codeText(r, size)
    case 'search_code':
    case 'query_db':
      return jsonText(r, size)
    case 'run_command':
      return logText(r, size)
    case 'fetch_docs':
      return markdownText(r, size, false)
    default:
      return markdownText(r, size, true)
  }
}

/**
 * Generates a conversation of exactly `messages` messages (the last episode may be cut short).
 * @returns {{ systemPrompt: string, tools: object[], messages: import('@langchain/core/messages').BaseMessage[], stats: object }}
 */
export function generateConversation({ seed = 42, messages: target = 2000 } = {}) {
  const r = rng(seed)
  const systemPrompt = [
    'You are a senior software engineer working as an autonomous coding agent.',
    'Use the tools to read code, search, run commands, query data and read tickets; cite what you read.',
    ...Array.from({ length: 24 }, () => sentence(r, 10, 24)),
    '回答时请保持简洁，必要时使用中文。',
  ].join('\n')
  const tools = TOOLS.map((t) => ({ type: 'function', function: t }))
  const out = []
  let calls = 0
  while (out.length < target) {
    out.push(new HumanMessage({ content: `${sentence(r, 8, 30)} ${r.next() < 0.15 ? r.pick(CJK) : ''}`.trim(), id: `msg_${out.length}` }))
    const turns = r.int(1, 3)
    for (let t = 0; t < turns && out.length < target; t++) {
      const n = r.int(1, 3)
      const tc = []
      for (let k = 0; k < n; k++) tc.push(toolCall(r, r.pick(TOOLS).name, calls++))
      const text = r.next() < 0.5 ? '' : `Let me ${r.pick(['check', 'look at', 'search for', 'verify'])} ${r.pick(IDENTS)} first.`
      out.push(new AIMessage({ content: text, tool_calls: tc, id: `msg_${out.length}` }))
      for (const c of tc) {
        if (out.length >= target) break
        out.push(new ToolMessage({ content: toolResult(r, c.name, resultSize(r)), tool_call_id: c.id, name: c.name, id: `msg_${out.length}` }))
      }
    }
    if (out.length < target) {
      const paras = Array.from({ length: r.int(1, 4) }, () => `${sentence(r)} ${sentence(r)}`)
      if (r.next() < 0.2) paras.push(r.pick(CJK))
      out.push(new AIMessage({ content: paras.join('\n\n'), id: `msg_${out.length}` }))
    }
  }
  return { systemPrompt, tools, messages: out, stats: statsOf(out) }
}

/** Size statistics: message count, tool results, UTF-8 bytes of all text. */
export function statsOf(messages) {
  let bytes = 0
  let toolResults = 0
  let cjkMessages = 0
  for (const m of messages) {
    const c = typeof m.content === 'string' ? m.content : JSON.stringify(m.content)
    bytes += Buffer.byteLength(c)
    if (m.tool_calls?.length) bytes += Buffer.byteLength(JSON.stringify(m.tool_calls))
    if (m._getType() === 'tool') toolResults++
    if (/[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]/.test(c)) cjkMessages++
  }
  return { messages: messages.length, toolResults, bytes, mb: bytes / 1e6, cjkMessages }
}

/** `--key value` / `--key=value` / bare `--flag` (= "true") command-line flags, shared by the benchmark scripts. */
export function parseFlags(argv) {
  const flags = {}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (!a.startsWith('--')) continue
    const [k, v] = a.includes('=') ? a.slice(2).split('=', 2) : [a.slice(2), argv[i + 1]?.startsWith('--') ? 'true' : argv[++i]]
    flags[k] = v ?? 'true'
  }
  return flags
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const flags = parseFlags(process.argv.slice(2))
  const seed = Number(flags.seed ?? 42)
  const n = Number(flags.messages ?? 2000)
  const t0 = performance.now()
  const conv = generateConversation({ seed, messages: n })
  const ms = performance.now() - t0
  const s = conv.stats
  console.log(
    `seed ${seed}: ${s.messages} messages, ${s.toolResults} tool results, ${s.mb.toFixed(2)} MB, ${s.cjkMessages} with CJK (generated in ${ms.toFixed(0)} ms)`,
  )
  if (flags.out) {
    const dump = { systemPrompt: conv.systemPrompt, tools: conv.tools, messages: mapChatMessagesToStoredMessages(conv.messages) }
    writeFileSync(flags.out, JSON.stringify(dump))
    console.log(`wrote ${flags.out}`)
  }
}
