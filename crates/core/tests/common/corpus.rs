//! A seeded corpus of texts by content class, for the tokenizer differential tests: the classes
//! where tokenizers disagree most (logs, JSON, Japanese, Chinese, Arabic, base64, minified
//! JavaScript, URL/path-heavy text, code, emoji) plus fuzzed Unicode, every kind of white space,
//! long runs without spaces and long digit runs. Deterministic: the same seed, the same texts.

/// xorshift64*: small, seeded, good enough to vary texts.
pub struct Rng(u64);

impl Rng {
  pub fn new(seed: u64) -> Self {
    Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
  }

  pub fn next(&mut self) -> u64 {
    self.0 ^= self.0 >> 12;
    self.0 ^= self.0 << 25;
    self.0 ^= self.0 >> 27;
    self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
  }

  /// A number in `0..n` (`n > 0`).
  pub fn below(&mut self, n: usize) -> usize {
    usize::try_from(self.next() % n as u64).unwrap_or(0)
  }

  pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
    items[self.below(items.len())]
  }
}

/// Every content class, by name.
pub const CLASSES: [&str; 14] = [
  "logs",
  "json",
  "japanese",
  "chinese",
  "arabic",
  "base64",
  "minified-js",
  "url-path",
  "code",
  "emoji",
  "fuzzed-unicode",
  "whitespace",
  "no-spaces",
  "digits",
];

const JA: &[&str] = &[
  "東京の天気は晴れです。",
  "このファイルを読み込んでください",
  "エラーが発生しました：",
  "ありがとうございます！",
  "データベースの接続に失敗しました。",
  "カタカナとひらがなと漢字",
  "ｶﾀｶﾅ半角",
  "「引用」と『二重引用』",
  "次のステップに進みます",
];
const ZH: &[&str] = &[
  "你好，世界！",
  "请把这个文件读一下。",
  "服务器返回了错误代码",
  "我们需要重新设计这个模块",
  "數據庫連接失敗（繁體）",
  "测试用例全部通过了",
  "“引号”和《书名号》",
  "中文English混合mixed文本",
];
const AR: &[&str] = &[
  "مرحبا بالعالم",
  "السَّلَامُ عَلَيْكُمْ",
  "الرجاء قراءة هذا الملف",
  "حدث خطأ في الخادم ٤٠٤",
  "نص عربي مع English كلمات",
  "الذَّكَاءُ الاصْطِنَاعِيُّ",
];
const EMOJI: &[&str] = &[
  "😀",
  "👍🏽",
  "👨‍👩‍👧‍👦",
  "🏳️‍🌈",
  "🇯🇵",
  "🇺🇸",
  "❤️",
  "✅",
  "🔥",
  "🧑🏿‍💻",
  "⚠️",
  "🙏",
  "😂😂😂",
  "🫠",
];
const WORDS: &[&str] = &[
  "the", "server", "returned", "an", "error", "while", "reading", "config", "file", "user",
  "Request", "timeout", "HTTP", "don't", "I'M", "we'll", "it's", "value", "NULL", "true",
];
const IDENTS: &[&str] = &[
  "a", "b", "e", "t", "n", "r", "fn", "i", "useState", "__init__", "self", "x0", "$el", "_",
];
/// Every Unicode white space (and the zero-width ones that are not).
const SPACES: &[&str] = &[
  " ", "\t", "\n", "\r\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}",
  "\u{2001}", "\u{2002}", "\u{2003}", "\u{2004}", "\u{2005}", "\u{2006}", "\u{2007}", "\u{2008}",
  "\u{2009}", "\u{200A}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{200B}",
  "\u{FEFF}", "  ", "\n\n", "\t\t", "   \n",
];

/// A text of `class`, roughly `len` characters long.
pub fn text(class: &str, rng: &mut Rng, len: usize) -> String {
  let mut s = String::new();
  while s.chars().count() < len {
    piece(class, rng, &mut s);
  }
  s
}

fn piece(class: &str, r: &mut Rng, s: &mut String) {
  match class {
    "logs" => log_line(r, s),
    "json" => json_object(r, s),
    "japanese" => s.push_str(r.pick(JA)),
    "chinese" => s.push_str(r.pick(ZH)),
    "arabic" => {
      s.push_str(r.pick(AR));
      s.push(' ');
    }
    "base64" => base64(r, s),
    "minified-js" => minified_js(r, s),
    "url-path" => urls_and_paths(r, s),
    "code" => code(r, s),
    "emoji" => {
      s.push_str(r.pick(EMOJI));
      if r.below(2) == 0 {
        s.push(' ');
        s.push_str(r.pick(WORDS));
      }
    }
    "fuzzed-unicode" => fuzzed(r, s),
    "whitespace" => {
      s.push_str(r.pick(SPACES));
      if r.below(3) > 0 {
        s.push_str(r.pick(WORDS));
      }
    }
    "no-spaces" => no_spaces(r, s),
    "digits" => {
      for _ in 0..(50 + r.below(3000)) {
        s.push(char::from(b'0' + u8::try_from(r.below(10)).unwrap_or(0)));
      }
      s.push_str(r.pick(&["", ".", ",", " ", "e10", "%"]));
    }
    _ => unreachable!("unknown class {class}"),
  }
}

fn log_line(r: &mut Rng, s: &mut String) {
  use std::fmt::Write;
  let lvl = r.pick(&["INFO", "WARN", "ERROR", "DEBUG", "trace"]);
  let _ = writeln!(
    s,
    "2026-11-{:02}T{:02}:{:02}:{:02}.{:03}Z {lvl} [worker-{}] req={:016x} ip=10.{}.{}.{} {} {} in {}ms",
    r.below(28) + 1, r.below(24), r.below(60), r.below(60), r.below(1000), r.below(16),
    r.next(), r.below(256), r.below(256), r.below(256), r.pick(WORDS), r.pick(WORDS), r.below(5000)
  );
}

fn json_object(r: &mut Rng, s: &mut String) {
  use std::fmt::Write;
  let _ = write!(
    s,
    "{{\"id\":{},\"name\":\"{}\",\"tags\":[\"{}\",\"{}\"],\"score\":{}.{},\"nested\":{{\"ok\":{},\"note\":\"{}\\n\\u00e9\"}}}}",
    r.below(100_000), r.pick(WORDS), r.pick(WORDS), r.pick(ZH), r.below(100), r.below(1000),
    r.pick(&["true", "false", "null"]), r.pick(JA)
  );
  if r.below(3) == 0 {
    s.push_str(",\n  ");
  }
}

fn minified_js(r: &mut Rng, s: &mut String) {
  use std::fmt::Write;
  let (name, x, y) = (r.pick(IDENTS), r.pick(IDENTS), r.pick(IDENTS));
  let _ = write!(
    s,
    "function {name}({x},{y}){{return {x}&&{y}.length>{n}?{x}[{y}]:void 0}}var {name}{n}=[{n},{m}].map(({x})=>{x}*2),",
    n = r.below(100),
    m = r.below(10_000)
  );
  s.push_str(r.pick(&[
    "!0;",
    "!1,",
    "null==",
    "===\"x\"",
    "`${a}`;",
    "/\\d+/g.test(e);",
  ]));
}

fn urls_and_paths(r: &mut Rng, s: &mut String) {
  use std::fmt::Write;
  let _ = write!(
    s,
    "https://{}.example.com/api/v{}/{}/{}?q={}&page={}&sort=-created_at#L{} /home/user/src/{}/{}.rs:{}:{} C:\\Users\\dev\\{}\\file_{}.txt ",
    r.pick(WORDS), r.below(4), r.pick(WORDS), r.next() % 100_000, r.pick(WORDS), r.below(50),
    r.below(900), r.pick(IDENTS), r.pick(WORDS), r.below(900), r.below(80), r.pick(WORDS), r.below(99)
  );
}

fn code(r: &mut Rng, s: &mut String) {
  use std::fmt::Write;
  let _ = write!(
    s,
    "    fn {}(&self, {}: usize) -> Result<Vec<u8>, Error> {{\n        let {} = self.{}.get({})?; // {}\n        Ok({}.to_vec())\n    }}\n\ndef {}(x):\n\treturn [i ** 2 for i in range(x) if i % {} == 0]\n",
    r.pick(IDENTS), r.pick(IDENTS), r.pick(IDENTS), r.pick(WORDS), r.below(10), r.pick(WORDS),
    r.pick(IDENTS), r.pick(IDENTS), r.below(9) + 2
  );
}

fn no_spaces(r: &mut Rng, s: &mut String) {
  let alphabet = r.pick(&[
    "abcdefghijklmnopqrstuvwxyz",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabc",
    "aaaaaaaaab",
    "-_=+.,;:/\\|",
    "éèàçñöß",
    "日本語中文",
  ]);
  let chars: Vec<char> = alphabet.chars().collect();
  for _ in 0..(200 + r.below(2000)) {
    s.push(chars[r.below(chars.len())]);
  }
}

fn base64(r: &mut Rng, s: &mut String) {
  const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for _ in 0..(64 + r.below(512)) {
    s.push(char::from(B64[r.below(64)]));
  }
  s.push_str(r.pick(&["=", "==", "", "\n"]));
}

fn fuzzed(r: &mut Rng, s: &mut String) {
  // Ranges: ASCII, Latin-1, combining marks, Greek/Cyrillic, Hebrew/Arabic, Devanagari, Thai,
  // Hangul, CJK, private use, symbols, astral planes; any scalar value now and then.
  const RANGES: &[(u32, u32)] = &[
    (0x20, 0x7E),
    (0x00, 0x1F),
    (0xA0, 0xFF),
    (0x300, 0x36F),
    (0x370, 0x4FF),
    (0x590, 0x6FF),
    (0x900, 0x97F),
    (0xE00, 0xE7F),
    (0xAC00, 0xD7A3),
    (0x4E00, 0x9FFF),
    (0xE000, 0xF8FF),
    (0x2000, 0x2BFF),
    (0x1F300, 0x1FAFF),
    (0x20000, 0x2A6DF),
    (0x0, 0x10_FFFF),
  ];
  for _ in 0..=r.below(12) {
    let (lo, hi) = RANGES[r.below(RANGES.len())];
    let cp = lo + u32::try_from(r.next() % u64::from(hi - lo + 1)).unwrap_or(0);
    if let Some(c) = char::from_u32(cp) {
      s.push(c);
    }
  }
}

/// `per_class` texts of every class (lengths from a few characters to 3,000, and a few of 40,000),
/// with their class.
pub fn corpus(seed: u64, per_class: usize) -> Vec<(&'static str, String)> {
  let mut r = Rng::new(seed);
  let mut out = Vec::with_capacity(per_class * CLASSES.len());
  for class in CLASSES {
    for i in 0..per_class {
      let len = match i % 10 {
        0 => 1 + r.below(8),
        9 if i % 50 == 49 => 40_000,
        _ => 20 + r.below(3000),
      };
      out.push((class, text(class, &mut r, len)));
    }
  }
  out
}
