// `--help` texts.

const OPTIONS = `Editor options:
  --config FILE           editor options as JSON, e.g. {"trigger":{"tokens":50000},"keep":{"messages":5}}
                          or a pipeline {"edits":[{"type":"clear_tool_uses",...},...]}
  --option KEY=VALUE      one option; dotted keys, JSON values, repeatable (applied after --config):
                          --option trigger.tokens=50000 --option keep.messages=5
                          --option excludeTools='["read_file"]' --option clearToolInputs=true
                          --option tokenCountMethod=model --option edits.1.keep.tokens=8000
                          (a list index replaces an element or appends one: 0 to the length)
  --max-input-tokens N    the model's input limit (for fraction options and the budget mark)
  --model NAME            model name (encoding in model mode, known input limits); default: the
                          request's \`model\`
  --format FORMAT         auto (default), langchain, openai or anthropic
`

const FORMATS = `Formats (detected, and written back the same way):
  langchain   a JSON array or {"messages": [...]} of LangChain dicts ({"type":"ai",...}),
              StoredMessage dumps ({"type","data"}) or serialized messages ({"lc":1,...})
  openai      a chat-completions request {model, messages, tools, ...} or a messages array;
              system messages inside, every other request field kept
  anthropic   a Messages request: top-level \`system\`, content blocks tool_use / tool_result /
              thinking; each tool_result block is edited as a tool message
`

export const HELP = {
  main: `context-editor: keep an agent's conversation inside its context window

Usage:
  context-editor edit <file|-> [options]      edit a conversation, write it in the same format
  context-editor inspect <file|-> [options]   per-message tokens and a map of the context window
  context-editor demo                          inspect and edit a bundled coding-agent session
  context-editor help <command>                help for one command

  -h, --help      help (also after a command: context-editor edit --help)
  -v, --version   the version

Exit codes:
  0        ok
  1        runtime failure: an I/O error (a full disk, a file size limit) or a bug; -o FILE is
           left as it was
  2        usage or invalid input (unknown flag, invalid JSON, options or messages)
  3        edit --jsonl --keep-going: some lines failed and were skipped, the others were written
  129/130/143  stopped by SIGHUP/SIGINT/SIGTERM (128 + N for another signal N); -o FILE is
           left as it was
`,
  edit: `Usage: context-editor edit <file|-> [options]

Reads a conversation, runs the configured edits (default: clear old tool results once the request
reaches 100,000 tokens, keeping the last 3), writes the edited conversation in the input's format
to stdout (or -o FILE) and the report to stderr. The input file is never changed unless -o names it.
A summarize edit writes no summary here (there is no model): the messages it would replace are
kept and the report warns summary_skipped.

Options:
  -o, --output FILE       write here instead of stdout; may be the input file. A regular file is
                          written to a temporary file beside it, synced, then renamed over it: it is
                          the old file or the whole new output, never a mix, and on any error (full
                          disk, interrupted) it is left as it was. It keeps its mode and owner; a
                          symbolic link stays a link (its target is replaced). Devices, FIFOs and
                          /dev/stdout are written directly. A read-only file is refused, and so is
                          stdout or /dev/fd/N onto the input itself (>> in.jsonl): use -o in.jsonl.
  --jsonl                 one conversation per line in and out, streamed; progress on a terminal,
                          a summary at the end (conversations, tokens before/after, time)
  --keep-going            with --jsonl: a bad line is reported (file:line: reason) and skipped, the
                          others are written; exit 3 if any was skipped (-o naming the input: it is
                          left as it was rather than lose the bad lines); --report json lists them
  --max-line-bytes N      with --jsonl: the longest line accepted (default and maximum 536870888,
                          the longest string Node.js holds); a longer line is a bad line
  --report MODE           text (default), json (the full report) or none; written to stderr
${OPTIONS}
${FORMATS}
Examples:
  context-editor edit session.json --option keep.messages=5 -o trimmed.json
  context-editor edit request.json --config options.json --max-input-tokens 200000 > out.json
  context-editor edit dataset.jsonl --jsonl -o compacted.jsonl
  context-editor edit dataset.jsonl --jsonl --keep-going --report json -o compacted.jsonl
`,
  inspect: `Usage: context-editor inspect <file|-> [options]

Shows a table of the messages (index, role, tool, tokens, share of the budget, tokens after the edits)
and a context map: one line of blocks proportional to tokens (system, user, AI text, tool call,
tool result, cleared, thinking), before and after the edits, with the trigger (T) and the budget
(B, max input tokens) marked. Colours on a terminal; plain letters when stdout is not a terminal
or NO_COLOR is set.

Options:
  --top N                 only the N largest messages in the table (0 = all, the default)
  --width N               cells of the context map
  --color WHEN            auto (default), always or never
  --report json           also write the full edit report to stderr as JSON
${OPTIONS}
${FORMATS}`,
  demo: `Usage: context-editor demo [--color WHEN] [--width N] [-o FILE]

Inspects and edits a bundled transcript (data/demo-transcript.json: a long coding-agent session
with many large tool results) twice: with the default options, then with the trimming pipeline of
data/demo-pipeline.json. -o writes the pipeline's edited transcript to FILE.
`,
} as const
