// The Xpert forms' texts and widgets, beside the option declaration they label: one entry per form
// field (`trigger`) and per field of an object field (`trigger.tokens`), with its title and
// description in the languages the Xpert UI shows and, where the default widget will not do, its
// `x-ui` hints. Keys, types, bounds and defaults come from the declaration
// (crates/core/src/options/spec.rs, through ts/generated/options-schema.ts); ts/options-form.ts
// joins the two, and __test__/options-declaration.spec.mjs fails when a form field has no entry
// here or an entry names no field. The summarization form uses its own entries first, then the
// context-editing ones (the trigger conditions are the same).

/** A text in the languages the Xpert UI shows. */
export interface I18nText {
  en_US: string
  zh_Hans: string
}

/** The texts and widget of one form field. */
export interface FieldText {
  title: I18nText
  description: I18nText
  ui?: Record<string, unknown>
}

export const CONTEXT_EDITING_TEXTS: Record<string, FieldText> = {
  trigger: {
    title: { en_US: 'Trigger', zh_Hans: '触发条件' },
    description: {
      en_US:
        'When to start clearing old tool results. Every key set must hold; in JSON you may also give a list of such objects (any one fires). Default: { "tokens": 100000 }.',
      zh_Hans: '何时开始清理旧的工具结果。所设置的条件需同时满足；在 JSON 中也可以给出多个这样的对象组成的列表（任一满足即触发）。默认：{ "tokens": 100000 }。',
    },
  },
  'trigger.tokens': {
    title: { en_US: 'Tokens', zh_Hans: 'Token 数' },
    description: {
      en_US: 'Fire when the request (messages, system prompt and tool schemas) has at least this many tokens.',
      zh_Hans: '当请求（消息、系统提示词和工具定义）的 token 数达到该值时触发。',
    },
  },
  'trigger.messages': {
    title: { en_US: 'Messages', zh_Hans: '消息数' },
    description: { en_US: 'Fire when the conversation has at least this many messages.', zh_Hans: '当对话消息条数达到该值时触发。' },
  },
  'trigger.fraction': {
    title: { en_US: 'Fraction of the input limit', zh_Hans: '占输入上限的比例' },
    description: {
      en_US:
        "Fire at this share (0–1] of the model's input limit. Needs the limit: from the model profile, a known OpenAI model name, or the maxInputTokens option.",
      zh_Hans: '当 token 数达到模型输入上限的该比例（0–1]时触发。需要已知上限：来自模型配置、已知的 OpenAI 模型名或 maxInputTokens 选项。',
    },
  },
  'trigger.toolUses': {
    title: { en_US: 'Tool results', zh_Hans: '工具结果数' },
    description: { en_US: 'Fire when there are at least this many tool results.', zh_Hans: '当工具结果条数达到该值时触发。' },
  },
  keep: {
    title: { en_US: 'Keep', zh_Hans: '保留' },
    description: {
      en_US: 'How many of the newest tool results stay intact: exactly one of messages, tokens or fraction. Default: { "messages": 3 }.',
      zh_Hans: '保留多少条最近的工具结果不被清理：messages、tokens、fraction 三者选其一。默认：{ "messages": 3 }。',
    },
  },
  'keep.messages': {
    title: { en_US: 'Tool results', zh_Hans: '工具结果数' },
    description: { en_US: 'Keep the newest N tool results.', zh_Hans: '保留最近的 N 条工具结果。' },
  },
  'keep.tokens': {
    title: { en_US: 'Tokens', zh_Hans: 'Token 数' },
    description: {
      en_US: 'Keep the newest tool results whose own token counts add up to at most this.',
      zh_Hans: '保留最近的若干条工具结果，其自身 token 数之和不超过该值。',
    },
  },
  'keep.fraction': {
    title: { en_US: 'Fraction of the input limit', zh_Hans: '占输入上限的比例' },
    description: {
      en_US: "Keep tool results worth this share [0–1] of the model's input limit (3 results when the limit is unknown).",
      zh_Hans: '保留占模型输入上限该比例 [0–1] 的工具结果（上限未知时保留 3 条）。',
    },
  },
  excludeTools: {
    title: { en_US: 'Excluded tools', zh_Hans: '排除的工具' },
    description: { en_US: 'Names of tools whose results are never cleared.', zh_Hans: '这些工具的结果永不清理。' },
    ui: { component: 'tags', span: 2 },
  },
  placeholder: {
    title: { en_US: 'Placeholder', zh_Hans: '占位文本' },
    description: { en_US: 'Text that replaces a cleared tool result.', zh_Hans: '替换被清理工具结果的文本。' },
  },
  clearToolInputs: {
    title: { en_US: 'Clear tool inputs', zh_Hans: '清理工具输入' },
    description: {
      en_US: 'Also replace the arguments of cleared tool calls with {}. In JSON you may give a list of tool names instead of true.',
      zh_Hans: '同时将被清理调用的参数替换为 {}。在 JSON 中也可以用工具名列表代替 true。',
    },
    ui: { component: 'switch' },
  },
  clearAtLeast: {
    title: { en_US: 'Clear at least (tokens)', zh_Hans: '至少清理（token）' },
    description: {
      en_US: 'When clearing, free at least this many tokens, clearing kept results newest-first if needed (0 = off).',
      zh_Hans: '触发清理时至少释放该数量的 token，必要时从最新的保留结果开始继续清理（0 表示关闭）。',
    },
  },
  stable: {
    title: { en_US: 'Stable clearing (prompt cache)', zh_Hans: '稳定清理（提示词缓存）' },
    description: {
      en_US:
        'Cache-aware clearing: the cleared boundary moves only in steps, so consecutive model calls send identical prefixes and the provider\'s prompt cache keeps hitting. true = { "stepRatio": 3 }: step when a step frees at least 3× the tokens it takes out of the cache. In JSON you may give a step rule instead of true: { "stepRatio": R }, { "stepTokens": N } (step when the uncleared results outside the kept window exceed N tokens), { "stepResults": N } (clear a multiple of N results); "maxTokens" is the hard ceiling (default: the tokens trigger, capped by the model\'s input limit). Stateless: replicas agree.',
      zh_Hans:
        '缓存友好的清理：被清理的边界只按步移动，连续的模型调用发送相同的前缀，服务商的提示词缓存得以持续命中。true = { "stepRatio": 3 }：当一步释放的 token 至少为其移出缓存的 token 的 3 倍时才移动。在 JSON 中也可以用步进规则代替 true：{ "stepRatio": R }、{ "stepTokens": N }（保留窗口之外未清理的结果超过 N 个 token 时移动）、{ "stepResults": N }（清理 N 条结果的整数倍）；"maxTokens" 为硬上限（默认：tokens 触发值，且不超过模型输入上限）。无状态：多个副本结果一致。',
    },
    ui: { component: 'switch' },
  },
  cacheBreakpoints: {
    title: { en_US: 'Cache breakpoints (Anthropic)', zh_Hans: '缓存断点（Anthropic）' },
    description: {
      en_US:
        'Mark the end of the request and the cleared boundaries with Anthropic cache_control, at most 4 breakpoints counting those already set. OpenAI-shaped messages are left alone (OpenAI caches prefixes automatically). "anthropic" is the same as true.',
      zh_Hans:
        '用 Anthropic 的 cache_control 标记请求末尾和被清理的边界，连同已有的断点最多 4 个。OpenAI 格式的消息不做改动（OpenAI 自动缓存前缀）。"anthropic" 等同于 true。',
    },
    ui: { component: 'switch' },
  },
  tokenCountMethod: {
    title: { en_US: 'Token counting', zh_Hans: 'Token 计数方式' },
    description: {
      en_US:
        '"approx": LangChain\'s estimate (characters / 4). "model": exact counts, computed offline: tiktoken for OpenAI models, the family\'s own tokenizer for Qwen, DeepSeek, Llama, Gemma and Mistral when its tokenizer package is installed, and for GLM-4 from the path of its tokenizer.json (see "Open-model tokenizer"). "estimate": the same as "model". "usage": the size the provider reported for the previous call plus what was added since (exact for Claude and Gemini after the first call; see "Counting before the first usage report").',
      zh_Hans:
        '"approx"：LangChain 的估算（字符数 / 4）。"model"：离线精确计数：OpenAI 模型用 tiktoken；Qwen、DeepSeek、Llama、Gemma、Mistral 在安装了对应分词器包时使用其自身的分词器，GLM-4 则读取其 tokenizer.json 文件路径（见“开源模型分词器”）。"estimate"：与 "model" 相同。"usage"：服务商为上一次调用报告的大小加上此后新增的内容（首次调用之后对 Claude 和 Gemini 也是精确的；见“首次用量报告前的计数方式”）。',
    },
    ui: {
      component: 'select',
      enumLabels: {
        approx: 'Approximate (chars / 4)',
        model: 'Exact (offline tokenizer)',
        estimate: 'Exact (alias of model)',
        usage: 'Provider-reported usage',
      },
    },
  },
  maxInputTokens: {
    title: { en_US: 'Max input tokens', zh_Hans: '最大输入 token 数' },
    description: {
      en_US: "The model's input limit, for fraction options. When empty, the model's profile or a known OpenAI model name is used.",
      zh_Hans: '模型的输入上限，用于比例（fraction）选项。留空时使用模型配置或已知的 OpenAI 模型名。',
    },
  },
  recovery: {
    title: { en_US: 'Recover from "too long"', zh_Hans: '超长错误恢复' },
    description: {
      en_US:
        'When the provider still refuses a request as too long, re-edit it to 80 % of the limit the error states (in JSON: { "target": 0.7 } for another share) and retry once. Other errors are never retried. Off: false.',
      zh_Hans:
        '当服务商仍以上下文过长拒绝请求时，将其重新编辑到错误信息所给上限的 80%（在 JSON 中可用 { "target": 0.7 } 指定其他比例）并重试一次。其他错误从不重试。关闭：false。',
    },
    ui: { component: 'switch' },
  },
  usageFallback: {
    title: { en_US: 'Counting before the first usage report', zh_Hans: '首次用量报告前的计数方式' },
    description: {
      en_US: 'With token counting "usage": how the first call, and the messages after the provider\'s last report, are counted. Default: approx.',
      zh_Hans: '在 token 计数方式为 "usage" 时：首次调用及服务商最近一次报告之后的消息如何计数。默认：approx。',
    },
    ui: { component: 'select' },
  },
  model: {
    title: { en_US: 'Model name', zh_Hans: '模型名称' },
    description: {
      en_US: "Model name for exact counting and known input limits. When empty, the request's model name is used.",
      zh_Hans: '用于精确计数和已知输入上限的模型名。留空时使用请求中的模型名。',
    },
  },
  encoding: {
    title: { en_US: 'Encoding', zh_Hans: '编码' },
    description: {
      en_US: 'Tokenizer for exact counting; wins over the model name. Default: o200k_base.',
      zh_Hans: '精确计数所用的分词器，优先于模型名。默认：o200k_base。',
    },
    ui: { component: 'select' },
  },
  tokenCacheSize: {
    title: { en_US: 'Token cache size', zh_Hans: 'Token 缓存大小' },
    description: {
      en_US: 'How many token counts of long texts to cache between calls (exact counting); 0 disables the cache.',
      zh_Hans: '在多次调用间缓存的长文本 token 计数条数（精确计数）；0 表示不缓存。',
    },
  },
  'trigger.turns': {
    title: { en_US: 'Turns', zh_Hans: '轮数' },
    description: {
      en_US: 'Fire when the conversation has at least this many turns (a turn = a user message and what follows it).',
      zh_Hans: '当对话轮数达到该值时触发（一轮 = 一条用户消息及其后的消息）。',
    },
  },
  prefer: {
    title: { en_US: 'Clear stale results first', zh_Hans: '优先清理过时结果' },
    description: {
      en_US:
        'Results cleared first, whatever their age, before the keep rule counts: superseded (a later write of the same file) and duplicate (a later call with equal arguments). In JSON you may give the list ["superseded", "duplicate"], or writer/reader tool lists for superseded.',
      zh_Hans:
        '无论新旧，先于保留规则清理的结果：superseded（之后对同一文件的写入）和 duplicate（之后参数相同的调用）。在 JSON 中也可以给出列表 ["superseded", "duplicate"]，或为 superseded 指定写入/读取工具列表。',
    },
  },
  'prefer.superseded': {
    title: { en_US: 'Superseded by a later write', zh_Hans: '被之后的写入取代' },
    description: {
      en_US: 'Clear a result when a later call of a writer tool names the same file (read_file(path), then edit_file(path)).',
      zh_Hans: '当之后的写入类工具调用指向同一文件时（先 read_file(path)，后 edit_file(path)），清理该结果。',
    },
  },
  'prefer.duplicate': {
    title: { en_US: 'Duplicate calls', zh_Hans: '重复调用' },
    description: {
      en_US: 'Clear a result when a later call of the same tool has equal arguments.',
      zh_Hans: '当之后对同一工具的调用参数相同时，清理该结果。',
    },
  },
  tokenizer: {
    title: { en_US: 'Open-model tokenizer', zh_Hans: '开源模型分词器' },
    description: {
      en_US:
        'Exact counts for open models: a family (qwen2.5, qwen3, deepseek-v3, llama3, gemma3, mistral-tekken) whose tokenizer package is installed beside this plugin, or the path of a Hugging Face tokenizer.json (GLM-4 has no package: give the path of its tokenizer.json). Wins over the encoding and the model name. When empty, the model name picks the family when its package is installed.',
      zh_Hans:
        '为开源模型精确计数：模型系列名（qwen2.5、qwen3、deepseek-v3、llama3、gemma3、mistral-tekken，需在本插件旁安装其分词器包），或 Hugging Face tokenizer.json 文件的路径（GLM-4 没有对应的包：请给出其 tokenizer.json 的路径）。优先于编码和模型名。留空时，若已安装对应的包，则由模型名确定系列。',
    },
  },
  pin: {
    title: { en_US: 'Pinned messages', zh_Hans: '固定的消息' },
    description: {
      en_US:
        'Messages no edit changes or removes (nor their tool calls and results): by tool name, the current run, message id, or a pinned: true marker on the message. When the pinned messages alone are over budget, the report warns pins_over_budget.',
      zh_Hans:
        '任何编辑都不会修改或删除的消息（及其工具调用和结果）：按工具名、当前运行、消息 id，或消息上的 pinned: true 标记指定。若仅固定的消息就超出预算，报告会给出 pins_over_budget 警告。',
    },
  },
  'pin.tools': {
    title: { en_US: 'Tools', zh_Hans: '工具' },
    description: { en_US: 'Results of these tools (and the assistant messages that call them).', zh_Hans: '这些工具的结果（以及调用它们的助手消息）。' },
    ui: { component: 'tags', span: 2 },
  },
  'pin.currentRun': {
    title: { en_US: 'Current run', zh_Hans: '当前运行' },
    description: { en_US: "Everything after the last user message: the agent's current run.", zh_Hans: '最后一条用户消息之后的全部内容：智能体的当前运行。' },
    ui: { component: 'switch' },
  },
  'pin.ids': {
    title: { en_US: 'Message ids', zh_Hans: '消息 id' },
    description: { en_US: 'Messages with these ids.', zh_Hans: '具有这些 id 的消息。' },
    ui: { component: 'tags', span: 2 },
  },
}

export const SUMMARIZATION_TEXTS: Record<string, FieldText> = {
  trigger: {
    title: { en_US: 'Trigger', zh_Hans: '触发条件' },
    description: {
      en_US:
        'When to summarize. Every key set must hold; in JSON you may also give a list of such objects (any one fires). Default (DeepAgents): { "fraction": 0.85 } when the input limit is known, else { "tokens": 170000 }.',
      zh_Hans:
        '何时进行摘要。所设置的条件需同时满足；在 JSON 中也可以给出多个这样的对象组成的列表（任一满足即触发）。默认（DeepAgents）：已知输入上限时为 { "fraction": 0.85 }，否则为 { "tokens": 170000 }。',
    },
  },
  keep: {
    title: { en_US: 'Keep', zh_Hans: '保留' },
    description: {
      en_US:
        'What stays verbatim after the summary: exactly one of messages, tokens, fraction or turns. Default (DeepAgents): { "fraction": 0.1 } when the input limit is known, else { "messages": 6 }.',
      zh_Hans:
        '摘要后原样保留的内容：messages、tokens、fraction、turns 四者选其一。默认（DeepAgents）：已知输入上限时为 { "fraction": 0.1 }，否则为 { "messages": 6 }。',
    },
  },
  'keep.messages': {
    title: { en_US: 'Messages', zh_Hans: '消息数' },
    description: { en_US: 'Keep the newest N messages verbatim.', zh_Hans: '原样保留最近的 N 条消息。' },
  },
  'keep.tokens': {
    title: { en_US: 'Tokens', zh_Hans: 'Token 数' },
    description: { en_US: 'Keep the newest messages that fit in this many tokens.', zh_Hans: '原样保留 token 总数不超过该值的最近消息。' },
  },
  'keep.fraction': {
    title: { en_US: 'Fraction of the input limit', zh_Hans: '占输入上限的比例' },
    description: {
      en_US: "Keep the newest messages that fit in this share [0–1] of the model's input limit.",
      zh_Hans: '原样保留 token 总数不超过模型输入上限该比例 [0–1] 的最近消息。',
    },
  },
  'keep.turns': {
    title: { en_US: 'Turns', zh_Hans: '轮数' },
    description: { en_US: 'Keep the last N turns verbatim (CE Node keep_last_n_turns).', zh_Hans: '原样保留最近的 N 轮对话。' },
  },
  summaryPrompt: {
    title: { en_US: 'Summary prompt', zh_Hans: '摘要提示词' },
    description: {
      en_US: "The prompt sent to the model; {messages} is replaced by the conversation to summarize. Default: LangChain's prompt.",
      zh_Hans: '发送给模型的提示词；其中的 {messages} 会被替换为待摘要的对话。默认：LangChain 的提示词。',
    },
    ui: { component: 'textarea', span: 2 },
  },
  summaryPrefix: {
    title: { en_US: 'Summary prefix', zh_Hans: '摘要前缀' },
    description: { en_US: 'Text placed before the summary in the summary message.', zh_Hans: '摘要消息中位于摘要之前的文本。' },
  },
  trimTokensToSummarize: {
    title: { en_US: 'Tokens sent to the summarizer', zh_Hans: '发送给摘要模型的 token 数' },
    description: {
      en_US: 'At most this many tokens of the newest messages to summarize are sent to the model (0 = no bound).',
      zh_Hans: '最多将待摘要消息中最新的这么多 token 发送给模型（0 表示不限）。',
    },
  },
  toolTrimLimit: {
    title: { en_US: 'Tool result limit (characters)', zh_Hans: '工具结果上限（字符）' },
    description: { en_US: 'Tool results sent to the summarizer are cut to this many characters.', zh_Hans: '发送给摘要模型的工具结果被截断为该字符数。' },
  },
  summaryRole: {
    title: { en_US: 'Summary role', zh_Hans: '摘要消息角色' },
    description: {
      en_US: '"user": a human message marked lc_source = summarization (LangChain). "assistant": an assistant message (CE Node).',
      zh_Hans: '"user"：标记 lc_source = summarization 的用户消息（LangChain）。"assistant"：助手消息（CE Node）。',
    },
    ui: { component: 'select' },
  },
  maxTokens: {
    title: { en_US: 'Summary max tokens', zh_Hans: '摘要最大 token 数' },
    description: { en_US: 'Output bound for the summarizing model.', zh_Hans: '摘要模型的输出上限。' },
  },
  maxInputTokens: {
    title: { en_US: 'Max input tokens', zh_Hans: '最大输入 token 数' },
    description: {
      en_US: "The model's input limit, for fraction options and the DeepAgents defaults. When empty, the model's profile is used.",
      zh_Hans: '模型的输入上限，用于比例（fraction）选项和 DeepAgents 默认值。留空时使用模型配置。',
    },
  },
  retryAfter: {
    title: { en_US: 'Retry a failed summary after', zh_Hans: '摘要失败后重试间隔' },
    description: {
      en_US:
        'After a failed summary, the summarizer is asked again only after this many model calls or seconds, whichever comes first (default 5 calls, 300 s).',
      zh_Hans: '摘要失败后，仅在经过这么多次模型调用或这么多秒后（以先到者为准）才再次请求摘要（默认 5 次、300 秒）。',
    },
  },
  'retryAfter.calls': {
    title: { en_US: 'Model calls', zh_Hans: '模型调用次数' },
    description: {
      en_US: 'Model calls to go by before asking again (0 = the next call). Default 5.',
      zh_Hans: '再次请求前需经过的模型调用次数（0 表示下一次调用）。默认 5。',
    },
  },
  'retryAfter.seconds': {
    title: { en_US: 'Seconds', zh_Hans: '秒数' },
    description: { en_US: 'Seconds after the failure before asking again. Default 300.', zh_Hans: '失败后再次请求前需等待的秒数。默认 300。' },
  },
}
