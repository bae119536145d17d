#!/usr/bin/env node
// Benchmark: context-editor vs LangChain's ClearToolUsesEdit, and our exact token counter vs the JS
// tokenizers. Not a test: it prints markdown tables (stdout) and progress (stderr).
//
//   npm run bench                                   # sizes 200, 2000, 10000; seed 42
//   node benchmark/bench.mjs --sizes 200,2000 --seed 7 --cap 10 --no-tokenizers
//
// Flags: --seed N, --sizes a,b,c, --cap SECONDS (time cap of one LangChain call; default 15),
//        --exact-cap SECONDS (the same for LangChain's exact mode; default --cap),
//        --budget SECONDS (time spent per measured cell of ours; default 2), --no-tokenizers,
//        --only-tokenizers, --families a,b (open-model tokenizer tables: which families; default every
//        installed one), --no-families, --no-extras (event loop, memory), --corpus-messages N (tokenizer corpus
//        size; default 2000), --dump-corpus FILE (write the tokenizer corpus as JSON and exit; see
//        benchmark/tokenizers-rs for the Rust-side comparison), --next-calls N (agent-loop calls timed
//        per size for the "next call" columns; default 25), --wasi (then the same editing and
//        token counting tables again with the WebAssembly build, NAPI_RS_FORCE_WASI=error, in a
//        child process: `npm run bench` passes it; build it with `npm run build:platforms wasm32-wasi`).
//        --only-cold / --no-cold: the cold-call section (benchmark/cold.mjs, also runnable alone).
// Build the release addon first: `npm run build` (napi build --platform --release && tsc).
//
// This file prints the machine header and runs the sections in order; each lives in its own module:
// bench-common.mjs (flags, formats, the measuring loop), langchain-side.mjs (LangChain's counters and
// runs, output equality), sizes.mjs (context editing per size), tokenizers.mjs (exact counting
// throughput, the corpus), extras.mjs (event loop, memory), and cold.mjs, adapters.mjs and
// tokenizer-families.mjs (sections also runnable alone).

import os from 'node:os'
import { statSync } from 'node:fs'
import { __napiBindingTarget } from '../index.js'

import { CAP_MS, EXACT_CAP_MS, flags, fmtMs, NEXT_CALLS, SEED, SIZES, version } from './bench-common.mjs'
import { makeJsTiktokenCounter } from './langchain-side.mjs'
import { benchSize, breakdownTable, editorTable } from './sizes.mjs'
import { benchTokenizers, tokenizerCorpus } from './tokenizers.mjs'
import { benchEventLoop, benchMemory, memoryChild } from './extras.mjs'

// ---------------------------------------------------------------------------------------------

async function main() {
  if (flags['memory-child'] === 'true') return memoryChild()
  if (flags['dump-corpus'] && flags['dump-corpus'] !== 'true') {
    const { writeFileSync } = await import('node:fs')
    const texts = tokenizerCorpus()
    writeFileSync(flags['dump-corpus'], JSON.stringify(texts))
    return console.log(`wrote ${texts.length} strings to ${flags['dump-corpus']}`)
  }
  const cpus = os.cpus()
  const header = [
    `Machine: ${cpus[0]?.model ?? '?'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, ${os.type()} ${os.release()}, Node ${process.version}; load average at start ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}.`,
    `Versions: langchain ${version('langchain')}, @langchain/core ${version('@langchain/core')}, js-tiktoken ${version('js-tiktoken')}, gpt-tokenizer ${version('gpt-tokenizer')}, tiktoken ${version('tiktoken')}. Seed ${SEED}.`,
  ]
  header.push(`Binding: ${__napiBindingTarget}.`)
  const addon =
    process.env.NAPI_RS_NATIVE_LIBRARY_PATH ??
    new URL(__napiBindingTarget === 'wasm32-wasi' ? '../context-editor.wasm32-wasi.wasm' : '../context-editor.linux-x64-gnu.node', import.meta.url).pathname
  try {
    const st = statSync(addon)
    header.push(`Addon: ${addon} (${(st.size / 2 ** 20).toFixed(1)} MiB, built ${st.mtime.toISOString()}).`)
    if (__napiBindingTarget === 'native' && st.size > 20 * 2 ** 20)
      header.push('**WARNING: this addon looks like a debug build; run `npm run build` (release) before benchmarking.**')
  } catch {}
  console.log(header.join('\n'))
  if (flags['no-cold'] !== 'true' && flags['only-tokenizers'] !== 'true') {
    console.log('\n### Cold calls and next calls against their peers (benchmark/cold.mjs)\n')
    console.log(await (await import('./cold.mjs')).benchCold({ seed: SEED, sizes: SIZES }))
    if (flags['only-cold'] === 'true') return
  }
  const js = await makeJsTiktokenCounter()

  if (flags['only-tokenizers'] !== 'true') {
    const rows = []
    for (const n of SIZES) rows.push(await benchSize(n, js))
    console.log('\n### Context editing: per-call time (median), speed-up vs LangChain in the same run\n')
    console.log(
      `Options: \`trigger: { tokens: 100000 }, keep: { messages: 3 }\`; ours also counts the system prompt and tool schemas (model \`gpt-4o\`, o200k_base). ` +
        `"next call" = what an agent pays per model call: one editor, one call before each of the last ${NEXT_CALLS} AI turns (each sees the history up to that turn; the previous call saw the one before), median of those calls (\`wrapModelCall\`: our LangChain/Xpert middleware hook, handler returning at once); "same history again" = the previous call saw exactly this history; "first call" / "cold" = a new editor (model: empty token cache, ranks loaded); \`editAsync\` is approx; "JS single pass" = benchmark/js-reference.mjs, a careful one-pass JS implementation of the same semantics for these options (reference, not a product). ` +
        `Outputs are compared with LangChain's field by field except \`id\` (LangChain builds cleared ToolMessages anew and drops their id; we keep it). ` +
        `Ratios of approx/async columns are against LangChain approx, of model columns against LangChain exact; "~" = against an estimate of a capped LangChain run ` +
        `(LangChain re-counts the whole history once per cleared result; a capped run is extrapolated from the part done). LangChain time cap: ${fmtMs(CAP_MS)} per call (exact: ${fmtMs(EXACT_CAP_MS)}).\n`,
    )
    console.log(editorTable(rows))
    console.log('\n### Where the time of a next call goes (each part timed on its own, median of 9)\n')
    console.log(breakdownTable(rows))
    console.log(
      `\nRuns per cell: ${rows.map((r) => `${r.n}: ours ${r.runs.approx}/${r.runs.cold}/${r.runs.warm}/${r.runs.async}/${r.runs.hook}, LangChain approx ${r.runs.lc}`).join('; ')}.`,
    )
    // Each framework adapter's hook next to the LangChain middleware's (benchmark/adapters.mjs).
    const { adaptersTable, benchAdapters } = await import('./adapters.mjs')
    console.log('\n### Framework adapters: per-step overhead at 2,000 messages (median of the last calls of an agent loop)\n')
    console.log(adaptersTable(await benchAdapters({ seed: SEED, messages: 2000, nextCalls: NEXT_CALLS })))
  }
  if (flags['no-tokenizers'] !== 'true') {
    console.log('\n### Exact token counting throughput\n')
    console.log(await benchTokenizers(js))
  }
  if (flags['no-tokenizers'] !== 'true' && flags['no-families'] !== 'true') {
    // One table per open-model family (benchmark/tokenizer-families.mjs): ours, the reference, the JS implementation.
    const { benchFamilies } = await import('./tokenizer-families.mjs')
    console.log('\n### Open-model tokenizers: ours vs the `tokenizers` crate vs @lenml/tokenizers\n')
    console.log(benchFamilies({ seed: SEED, families: flags.families ? String(flags.families).split(',') : undefined }))
  }
  const { existsSync } = await import('node:fs')
  const wasm = new URL('../context-editor.wasm32-wasi.wasm', import.meta.url)
  if (flags.wasi === 'true' && !existsSync(wasm)) {
    // A fresh clone has only the native build: say how to get the WebAssembly one instead of failing.
    console.log('\n## WebAssembly build: not built here, section skipped (`npm run build:platforms wasm32-wasi`, then `npm run bench`)\n')
  } else if (flags.wasi === 'true') {
    // The same tables with the WebAssembly build, which binds when this module loads: a child run.
    console.log('\n## The same with the WebAssembly build (wasm32-wasi, NAPI_RS_FORCE_WASI=error)\n')
    const args = process.argv.slice(2).filter((a) => a !== '--wasi')
    const { execFileSync } = await import('node:child_process')
    console.log(
      execFileSync(process.execPath, ['--no-warnings', new URL(import.meta.url).pathname, ...args, '--no-extras'], {
        env: { ...process.env, NAPI_RS_FORCE_WASI: 'error' },
        stdio: ['ignore', 'pipe', 'inherit'],
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      }),
    )
  }
  if (flags['no-extras'] !== 'true' && flags['only-tokenizers'] !== 'true') {
    console.log('\n### Event loop while four 10,000-message histories are edited concurrently (`editAsync`, model mode)\n')
    console.log(await benchEventLoop())
    console.log('\n### Memory\n')
    console.log(await benchMemory())
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
