// A seeded corpus of texts by content class, for the open-model tokenizer test and benchmark and
// the measurements of the estimate: the classes where tokenizers disagree most (logs, JSON,
// Japanese, Chinese, Arabic, base64, minified JavaScript, URL/path-heavy text, code, emoji, prose)
// plus fuzzed Unicode, every kind of white space, long runs without spaces and long digit runs.
// The same seed gives the same texts (the Rust twin is crates/core/tests/common/corpus.rs).
//
//   import { CLASSES, classCorpus } from './tokenizer-corpus.mjs'
//   classCorpus({ seed: 7, perClass: 50 })  // [{ cls, text }, ...]

/** Every content class, by name. */
export const CLASSES = [
  'prose',
  'logs',
  'json',
  'japanese',
  'chinese',
  'arabic',
  'base64',
  'minified-js',
  'url-path',
  'code',
  'emoji',
  'fuzzed-unicode',
  'whitespace',
  'no-spaces',
  'digits',
]

/** The classes of natural text and tool output (not the stress classes) for accuracy tables. */
export const CONTENT_CLASSES = CLASSES.slice(0, 11)

function rng(seed) {
  let s = BigInt.asUintN(64, BigInt(seed) * 0x9e3779b97f4a7c15n) | 1n
  const next = () => {
    s ^= s >> 12n
    s = BigInt.asUintN(64, s ^ (s << 25n))
    s ^= s >> 27n
    return BigInt.asUintN(64, s * 0x2545f4914f6cdd1dn)
  }
  const below = (n) => Number(next() % BigInt(n))
  return { next, below, pick: (items) => items[below(items.length)] }
}

const JA = [
  '東京の天気は晴れです。',
  'このファイルを読み込んでください',
  'エラーが発生しました：',
  'ありがとうございます！',
  'データベースの接続に失敗しました。',
  'カタカナとひらがなと漢字',
  'ｶﾀｶﾅ半角',
  '「引用」と『二重引用』',
  '次のステップに進みます',
]
const ZH = [
  '你好，世界！',
  '请把这个文件读一下。',
  '服务器返回了错误代码',
  '我们需要重新设计这个模块',
  '數據庫連接失敗（繁體）',
  '测试用例全部通过了',
  '“引号”和《书名号》',
  '中文English混合mixed文本',
]
const AR = [
  'مرحبا بالعالم',
  'السَّلَامُ عَلَيْكُمْ',
  'الرجاء قراءة هذا الملف',
  'حدث خطأ في الخادم ٤٠٤',
  'نص عربي مع English كلمات',
  'الذَّكَاءُ الاصْطِنَاعِيُّ',
  'تم تحديث قاعدة البيانات بنجاح',
  'يرجى المحاولة مرة أخرى لاحقا',
]
const EMOJI = ['😀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇯🇵', '🇺🇸', '❤️', '✅', '🔥', '🧑🏿‍💻', '⚠️', '🙏', '😂😂😂', '🫠']
const WORDS = [
  'the',
  'server',
  'returned',
  'an',
  'error',
  'while',
  'reading',
  'config',
  'file',
  'user',
  'Request',
  'timeout',
  'HTTP',
  "don't",
  "I'M",
  "we'll",
  "it's",
  'value',
  'NULL',
  'true',
]
const PROSE = [
  'The quick brown fox jumps over the lazy dog.',
  'We measured the latency of every request and found that most of it was spent waiting for the database.',
  'Please summarize the document above in three sentences, keeping the numbers exact.',
  'In 2024, the committee approved a budget of $4.2 million for the new library wing.',
  "It's not that the plan failed; it's that nobody agreed on what success meant.",
  'Run the migration, then restart the service and check the logs for warnings.',
]
const IDENTS = ['a', 'b', 'e', 't', 'n', 'r', 'fn', 'i', 'useState', '__init__', 'self', 'x0', '$el', '_']
const SPACES = [
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\r',
  '\u000b',
  '\u000c',
  '\u0085',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u2001',
  '\u2002',
  '\u2003',
  '\u2004',
  '\u2005',
  '\u2006',
  '\u2007',
  '\u2008',
  '\u2009',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\u200b',
  '\ufeff',
  '  ',
  '\n\n',
  '\t\t',
  '   \n',
]
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const pad = (n, w = 2) => String(n).padStart(w, '0')

const PIECES = {
  prose: (r) => r.pick(PROSE) + ' ',
  logs: (r) =>
    `2026-11-${pad(r.below(28) + 1)}T${pad(r.below(24))}:${pad(r.below(60))}:${pad(r.below(60))}.${pad(r.below(1000), 3)}Z ${r.pick(['INFO', 'WARN', 'ERROR', 'DEBUG', 'trace'])} [worker-${r.below(16)}] req=${r.next().toString(16).padStart(16, '0')} ip=10.${r.below(256)}.${r.below(256)}.${r.below(256)} ${r.pick(WORDS)} ${r.pick(WORDS)} in ${r.below(5000)}ms\n`,
  json: (r) =>
    JSON.stringify({
      id: r.below(100000),
      name: r.pick(WORDS),
      tags: [r.pick(WORDS), r.pick(ZH)],
      score: r.below(100000) / 1000,
      nested: { ok: r.pick([true, false, null]), note: r.pick(JA) + '\né' },
    }) + (r.below(3) === 0 ? ',\n  ' : ''),
  japanese: (r) => r.pick(JA),
  chinese: (r) => r.pick(ZH),
  arabic: (r) => r.pick(AR) + ' ',
  base64: (r) => {
    let s = ''
    for (let i = 64 + r.below(512); i > 0; i--) s += B64[r.below(64)]
    return s + r.pick(['=', '==', '', '\n'])
  },
  'minified-js': (r) => {
    const [f, x, y, n, m] = [r.pick(IDENTS), r.pick(IDENTS), r.pick(IDENTS), r.below(100), r.below(10000)]
    return (
      `function ${f}(${x},${y}){return ${x}&&${y}.length>${n}?${x}[${y}]:void 0}var ${f}${n}=[${n},${m}].map((${x})=>${x}*2),` +
      r.pick(['!0;', '!1,', 'null==', '==="x"', '`${a}`;', '/\\d+/g.test(e);'])
    )
  },
  'url-path': (r) =>
    `https://${r.pick(WORDS)}.example.com/api/v${r.below(4)}/${r.pick(WORDS)}/${Number(r.next() % 100000n)}?q=${r.pick(WORDS)}&page=${r.below(50)}&sort=-created_at#L${r.below(900)} /home/user/src/${r.pick(IDENTS)}/${r.pick(WORDS)}.rs:${r.below(900)}:${r.below(80)} C:\\Users\\dev\\${r.pick(WORDS)}\\file_${r.below(99)}.txt `,
  code: (r) =>
    `    fn ${r.pick(IDENTS)}(&self, ${r.pick(IDENTS)}: usize) -> Result<Vec<u8>, Error> {\n        let ${r.pick(IDENTS)} = self.${r.pick(WORDS)}.get(${r.below(10)})?; // ${r.pick(WORDS)}\n        Ok(${r.pick(IDENTS)}.to_vec())\n    }\n\ndef ${r.pick(IDENTS)}(x):\n\treturn [i ** 2 for i in range(x) if i % ${r.below(9) + 2} == 0]\n`,
  emoji: (r) => r.pick(EMOJI) + (r.below(2) === 0 ? ' ' + r.pick(WORDS) : ''),
  'fuzzed-unicode': (r) => {
    const ranges = [
      [0x20, 0x7e],
      [0x00, 0x1f],
      [0xa0, 0xff],
      [0x300, 0x36f],
      [0x370, 0x4ff],
      [0x590, 0x6ff],
      [0x900, 0x97f],
      [0xe00, 0xe7f],
      [0xac00, 0xd7a3],
      [0x4e00, 0x9fff],
      [0xe000, 0xf8ff],
      [0x2000, 0x2bff],
      [0x1f300, 0x1faff],
      [0x20000, 0x2a6df],
      [0x0, 0x10ffff],
    ]
    let s = ''
    for (let i = r.below(13); i >= 0; i--) {
      const [lo, hi] = ranges[r.below(ranges.length)]
      const cp = lo + Number(r.next() % BigInt(hi - lo + 1))
      if (cp < 0xd800 || cp > 0xdfff) s += String.fromCodePoint(cp)
    }
    return s
  },
  whitespace: (r) => r.pick(SPACES) + (r.below(3) > 0 ? r.pick(WORDS) : ''),
  'no-spaces': (r) => {
    const chars = [...r.pick(['abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZabc', 'aaaaaaaaab', '-_=+.,;:/\\|', 'éèàçñöß', '日本語中文'])]
    let s = ''
    for (let i = 200 + r.below(2000); i > 0; i--) s += chars[r.below(chars.length)]
    return s
  },
  digits: (r) => {
    let s = ''
    for (let i = 50 + r.below(3000); i > 0; i--) s += String(r.below(10))
    return s + r.pick(['', '.', ',', ' ', 'e10', '%'])
  },
}

/** A text of class `cls`, about `len` characters (code points) long. */
export function classText(cls, r, len) {
  let s = ''
  while ([...s].length < len) s += PIECES[cls](r)
  return s
}

/**
 * `perClass` texts of every class in `classes` (lengths from a few characters to 3,000, one in
 * fifty 40,000), as `{ cls, text }`.
 */
export function classCorpus({ seed = 16, perClass = 50, classes = CLASSES, maxLen = 3000 } = {}) {
  const r = rng(seed)
  const out = []
  for (const cls of classes) {
    for (let i = 0; i < perClass; i++) {
      const len = i % 10 === 0 ? 1 + r.below(8) : i % 50 === 49 ? 40000 : 20 + r.below(maxLen)
      out.push({ cls, text: classText(cls, r, len) })
    }
  }
  return out
}
