#!/usr/bin/env python3
"""Builds the estimator's calibration and held-out corpora from material on this machine.

No network: Chinese and Japanese prose comes from the Debian packages `manpages-zh` and
`manpages-ja` (extract them with `apt-get download manpages-zh manpages-ja` and `dpkg-deb -x`, see
README.md in this directory), English prose from Markdown files in node_modules and the Cargo
registry, source code from the Python standard library, the Cargo registry and node_modules, JSON
from package.json files and tool outputs generated from local files, logs from /var/log, /tmp build
logs and generated application logs.

Every record is one "message": {"class", "source", "split", "text"}. The split (`cal` or `held`) is
decided by a hash of the source file, so no file feeds both calibration and evaluation.

Usage: python3 tools/estimator/corpus.py --man-root /tmp/est/root/usr/share/man --out /tmp/est/corpus.jsonl
"""

import argparse
import glob
import gzip
import hashlib
import json
import os
import random
import re
import sys

CLASSES = ["english", "code", "json", "chinese", "japanese", "mixed_zh_en", "logs"]
# Bytes of text gathered per class and split, before chunking into messages.
DEFAULT_BUDGET = 1_200_000


def split_of(source):
    """`cal` or `held`, stable per source file."""
    h = int(hashlib.sha1(source.encode()).hexdigest()[:8], 16)
    return "cal" if h % 2 == 0 else "held"


def rng_for(source):
    return random.Random(int(hashlib.sha1(("rng" + source).encode()).hexdigest()[:12], 16))


def read(path):
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rt", encoding="utf-8", errors="strict") as f:
                return f.read()
        with open(path, encoding="utf-8", errors="strict") as f:
            return f.read()
    except (UnicodeDecodeError, OSError):
        return None


def chunk(text, rng, lo=150, hi=6000):
    """Cuts text into messages of random size at line boundaries."""
    lines = text.splitlines(keepends=True)
    out, cur, target = [], [], rng.randint(lo, hi)
    size = 0
    for line in lines:
        cur.append(line)
        size += len(line)
        if size >= target:
            out.append("".join(cur))
            cur, size, target = [], 0, rng.randint(lo, hi)
    if cur and size >= lo // 2:
        out.append("".join(cur))
    return [m for m in out if m.strip()]


# ---------------------------------------------------------------------------------------------
# roff → text

ESCAPES = [
    (re.compile(r"\\f(\(..|\[[^\]]*\]|.)"), ""),
    (re.compile(r"\\s[-+]?\d"), ""),
    (re.compile(r"\\\*(\(..|\[[^\]]*\]|.)"), ""),
    (re.compile(r"\\\(em|\\\[em\]"), "—"),
    (re.compile(r"\\\(en|\\\[en\]"), "–"),
    (re.compile(r"\\\(aq"), "'"),
    (re.compile(r"\\\(dq"), '"'),
    (re.compile(r"\\\(lq|\\\(rq"), '"'),
    (re.compile(r"\\\(bu"), "•"),
    (re.compile(r"\\\(co"), "©"),
    (re.compile(r"\\\(..|\\\[[^\]]*\]"), ""),
    (re.compile(r"\\[-]"), "-"),
    (re.compile(r"\\e"), "\\\\"),
    (re.compile(r"\\[&,/|^%:]"), ""),
    (re.compile(r"\\ "), " "),
    (re.compile(r"\\c$"), ""),
]
TEXT_MACROS = {"SH", "SS", "B", "I", "BR", "IR", "RB", "BI", "IB", "RI", "SM", "SB", "IP", "TP", "UR", "MT"}


def roff_to_text(src):
    """Strips roff markup and fills paragraphs the way a man page is displayed (lines joined by a
    space, except inside .nf/.EX blocks)."""
    out = []
    fill = True
    for line in src.splitlines():
        if line.startswith((".nf", ".EX")):
            fill = False
        elif line.startswith((".fi", ".EE")):
            fill = True
        if not fill and not line.startswith((".", "'")):
            out.append(line + "\x00")
            continue
        if line.startswith(('.\\"', "'\\\"", '.\\\\"')) or line.strip() in (".", "'"):
            continue
        if line.startswith((".", "'")):
            parts = line[1:].split(None, 1)
            if not parts:
                continue
            macro, rest = parts[0], (parts[1] if len(parts) > 1 else "")
            if macro in TEXT_MACROS and rest:
                if macro in ("BR", "IR", "RB", "BI", "IB", "RI"):
                    rest = "".join(re.findall(r'"([^"]*)"|(\S+)', rest) and
                                   [a or b for a, b in re.findall(r'"([^"]*)"|(\S+)', rest)])
                else:
                    rest = rest.replace('"', "")
                if macro in ("SH", "SS"):
                    out.append("")
                out.append(rest)
            else:
                out.append("")
            continue
        out.append(line)
    paras, cur = [], []
    for line in out:
        if line.endswith("\x00"):
            cur.append(line[:-1] + "\n")
        elif line.strip():
            cur.append(line.strip() + " ")
        elif cur:
            paras.append("".join(cur).rstrip())
            cur = []
    if cur:
        paras.append("".join(cur).rstrip())
    text = "\n\n".join(paras)
    for pat, rep in ESCAPES:
        text = pat.sub(rep, text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip() + "\n"


def han_ratio(text):
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if "\u4e00" <= c <= "\u9fff" or "\u3040" <= c <= "\u30ff") / len(letters)


# ---------------------------------------------------------------------------------------------
# sources per class

def man_pages(root, lang):
    files = sorted(glob.glob(os.path.join(root, lang, "man*", "*")))
    for path in files:
        src = read(path)
        if not src:
            continue
        text = roff_to_text(src)
        # Keep pages that are actually translated (not English pages shipped in the package).
        if han_ratio(text) < 0.3:
            continue
        yield path, text


def markdown_files():
    roots = ["/work/main/node_modules", os.path.expanduser("~/.cargo/registry/src")]
    for root in roots:
        for path in sorted(glob.glob(os.path.join(root, "**", "*.md"), recursive=True)):
            yield path


def english_man_pages():
    for path in sorted(glob.glob("/usr/share/man/man[1-8]/*")):
        src = read(path)
        if src:
            yield path, roff_to_text(src)


def english_prose():
    for path, text in english_man_pages():
        yield path, text
    for path in markdown_files():
        src = read(path)
        if not src or "CHANGELOG" in path.upper():
            continue
        # Drop fenced code and tables; keep paragraphs that are mostly words.
        src = re.sub(r"```.*?```", "", src, flags=re.S)
        paras = []
        for p in re.split(r"\n\s*\n", src):
            if p.lstrip().startswith("|") or p.lstrip().startswith("<"):
                continue
            letters = sum(1 for c in p if c.isalpha() or c == " ")
            if len(p) > 80 and letters / len(p) > 0.85:
                paras.append(p.strip())
        if paras:
            yield path, "\n\n".join(paras) + "\n"


def source_code():
    pats = [
        "/usr/lib/python3.11/**/*.py",
        os.path.expanduser("~/.cargo/registry/src/**/*.rs"),
        "/work/main/node_modules/**/*.js",
        "/work/main/node_modules/**/*.ts",
    ]
    per = []
    for pat in pats:
        files = sorted(glob.glob(pat, recursive=True))
        random.Random(7).shuffle(files)
        per.append(files)
    # Interleave languages so each gets a share of the budget.
    for group in zip(*per):
        for path in group:
            src = read(path)
            if src and 500 < len(src) < 200_000 and not path.endswith(".min.js"):
                yield path, src


def json_outputs():
    """package.json files and tool outputs generated from local files, pretty and compact."""
    pkgs = sorted(glob.glob("/work/main/node_modules/**/package.json", recursive=True))
    code = sorted(glob.glob("/usr/lib/python3.11/*.py"))
    dirs = sorted(d for d in glob.glob("/usr/lib/python3.11/*/") + glob.glob("/usr/share/doc/*/"))
    items = []
    for p in pkgs:
        items.append(("pkg", p))
    for p in code:
        items.append(("grep", p))
    for d in dirs[:400]:
        items.append(("ls", d))
    random.Random(11).shuffle(items)
    for kind, path in items:
        rng = rng_for(path)
        if kind == "pkg":
            src = read(path)
            try:
                obj = json.loads(src)
            except (TypeError, ValueError):
                continue
        elif kind == "grep":
            src = read(path)
            if not src:
                continue
            word = rng.choice(["def ", "return", "import", "self.", "raise", "if "])
            hits = [
                {"file": path, "line": i + 1, "text": line.strip()}
                for i, line in enumerate(src.splitlines())
                if word in line
            ][: rng.randint(5, 60)]
            obj = {"tool": "grep", "query": word, "matches": hits, "truncated": len(hits) >= 60}
        else:
            entries = []
            for e in sorted(os.scandir(path), key=lambda e: e.name)[:80]:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                entries.append({
                    "name": e.name,
                    "type": "dir" if e.is_dir() else "file",
                    "size": st.st_size,
                    "mode": oct(st.st_mode & 0o777),
                    "modified": int(st.st_mtime),
                    "inode": st.st_ino,
                })
            obj = {"path": path, "entries": entries, "count": len(entries)}
        style = rng.random()
        if style < 0.5:
            text = json.dumps(obj, indent=2, ensure_ascii=False)
        elif style < 0.8:
            text = json.dumps(obj, ensure_ascii=False)
        else:
            text = json.dumps(obj, indent=4, ensure_ascii=rng.random() < 0.5)
        yield path, text + "\n"


def chunk_json(text, rng, lo=150, hi=6000):
    """JSON tool outputs are whole messages; long ones are cut like text (tools truncate)."""
    if len(text) <= hi:
        return [text]
    return chunk(text, rng, lo, hi)


LEVELS = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"]
SERVICES = ["api-gateway", "auth", "billing", "scheduler", "worker-3", "ingest", "search"]


def generated_log(seed_source, rng, words):
    lines = []
    t = 1_763_700_000 + rng.randint(0, 10_000_000)
    style = rng.randint(0, 3)
    for _ in range(rng.randint(150, 400)):
        t += rng.randint(0, 5)
        ts = "2025-%02d-%02dT%02d:%02d:%02d.%03dZ" % (
            rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59),
            rng.randint(0, 59), rng.randint(0, 999))
        req = "%08x-%04x-%04x-%04x-%012x" % tuple(rng.getrandbits(b) for b in (32, 16, 16, 16, 48))
        msg = " ".join(rng.choice(words) for _ in range(rng.randint(3, 12)))
        if style == 0:
            ip = ".".join(str(rng.randint(1, 254)) for _ in range(4))
            path = "/" + "/".join(rng.choice(words).lower() for _ in range(rng.randint(1, 4)))
            lines.append('%s - - [%s] "%s %s HTTP/1.1" %d %d "-" "Mozilla/5.0 (X11; Linux x86_64)"' % (
                ip, ts, rng.choice(["GET", "POST", "PUT"]), path, rng.choice([200, 200, 201, 304, 404, 500]),
                rng.randint(0, 90000)))
        elif style == 1:
            lines.append("%s %-5s [%s] %s request_id=%s duration_ms=%d" % (
                ts, rng.choice(LEVELS), rng.choice(SERVICES), msg, req, rng.randint(1, 5000)))
        elif style == 2:
            lines.append(json.dumps({"ts": ts, "level": rng.choice(LEVELS).lower(), "svc": rng.choice(SERVICES),
                                     "msg": msg, "trace_id": "%032x" % rng.getrandbits(128),
                                     "latency": round(rng.random() * 900, 3)}))
        else:
            lines.append("[%s] %s: %s (pid=%d, sha=%040x)" % (ts, rng.choice(LEVELS), msg, rng.randint(100, 65000),
                                                              rng.getrandbits(160)))
            if rng.random() < 0.05:
                lines.append("Traceback (most recent call last):")
                for _ in range(rng.randint(2, 6)):
                    lines.append('  File "/srv/app/%s.py", line %d, in %s' % (
                        rng.choice(words).lower(), rng.randint(1, 900), rng.choice(words).lower()))
                lines.append("ValueError: %s" % msg)
    return "\n".join(lines) + "\n"


def logs(words):
    files = sorted(glob.glob("/tmp/python-build.*.log")) + sorted(
        glob.glob("/var/log/*.log") + glob.glob("/var/log/apt/*.log") + glob.glob("/root/.npm/_logs/*.log"))
    for path in files:
        src = read(path)
        if src:
            yield path, src
    for i in range(60):
        source = "generated-log-%d" % i
        yield source, generated_log(source, rng_for(source), words)


def mixed_chat(zh_paras, en_paras, code_snips):
    """Chinese/English chat: a Chinese question or answer with English terms, sentences and code."""
    # Every part of a message comes from sources of the anchor's split, so held-out chat never
    # reuses calibration text.
    by_split = {}
    for src, p in zh_paras:
        by_split.setdefault(("zh", split_of(src)), []).append(p)
    for src, p in en_paras:
        by_split.setdefault(("en", split_of(src)), []).append(p)
    for src, p in code_snips:
        by_split.setdefault(("code", split_of(src)), []).append(p)
    for i in range(len(zh_paras)):
        source, zh = zh_paras[i]
        split = split_of(source)
        rng = rng_for("mixed" + source + str(i))
        parts = [zh]
        for _ in range(rng.randint(0, 4)):
            r = rng.random()
            if r < 0.45:
                parts.append(rng.choice(by_split[("zh", split)]))
            elif r < 0.8:
                parts.append(rng.choice(by_split[("en", split)]))
            else:
                parts.append("```\n" + rng.choice(by_split[("code", split)]) + "\n```")
        rng.shuffle(parts)
        prefix = rng.choice(["", "用户：", "助手：", "好的，", "请问 ", "根据文档，"])
        yield source, prefix + "\n\n".join(parts) + "\n"


SYMBOLS = ("“”‘’•…—–©®™°±×÷€£¥→←↑↓⇒≤≥≠≈∞✓✔✗✘★☆●○■□▶◀♥☃⚠⚡✅❌❗❓✨🚀🔥🎉👍👎😀😂🙂🤔💡📦📁📄🔧🐛⏱️✏️❤️")


def symbols_text(source, rng, words):
    """Emoji, symbols and box drawing as agents print them: status lines and `tree` listings."""
    lines = []
    if rng.random() < 0.5:
        root = source.split(":", 1)[1]
        def walk(path, prefix, depth):
            try:
                entries = sorted(os.listdir(path))[:12]
            except OSError:
                return
            for k, name in enumerate(entries):
                last = k == len(entries) - 1
                lines.append(prefix + ("└── " if last else "├── ") + name)
                full = os.path.join(path, name)
                if depth < 2 and os.path.isdir(full) and not os.path.islink(full):
                    walk(full, prefix + ("    " if last else "│   "), depth + 1)
        lines.append(root)
        walk(root, "", 0)
    for _ in range(rng.randint(10, 60)):
        parts = []
        for _ in range(rng.randint(2, 10)):
            if rng.random() < 0.35:
                parts.append("".join(rng.choice(SYMBOLS) for _ in range(rng.randint(1, 3))))
            else:
                parts.append(rng.choice(words))
        lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--man-root", default="/tmp/est/root/usr/share/man")
    ap.add_argument("--out", default="/tmp/est/corpus.jsonl")
    ap.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    args = ap.parse_args()

    records = []
    budget = {}

    def take(cls, source, messages):
        split = split_of(source)
        key = (cls, split)
        # No single file may dominate a class: at most a tenth of the budget per source.
        per_source = 0
        for m in messages:
            if budget.get(key, 0) >= args.budget or per_source >= args.budget // 10:
                return
            per_source += len(m.encode())
            budget[key] = budget.get(key, 0) + len(m.encode())
            records.append({"class": cls, "source": source, "split": split, "text": m})

    def full(cls):
        return all(budget.get((cls, s), 0) >= args.budget for s in ("cal", "held"))

    en_paras = []
    for path, text in english_prose():
        if full("english"):
            break
        take("english", path, chunk(text, rng_for(path)))
        en_paras.extend((path, p) for p in text.split("\n\n")[:5] if len(p) < 600)

    code_snips = []
    for path, text in source_code():
        if full("code"):
            break
        msgs = chunk(text, rng_for(path))
        take("code", path, msgs)
        code_snips.extend((path, m[:400]) for m in msgs[:2])

    for path, text in json_outputs():
        if full("json"):
            break
        take("json", path, chunk_json(text, rng_for(path)))

    zh_paras = []
    for path, text in man_pages(args.man_root, "zh_CN"):
        if not full("chinese"):
            take("chinese", path, chunk(text, rng_for(path)))
        zh_paras.extend((path, p) for p in text.split("\n\n") if 40 < len(p) < 800 and han_ratio(p) > 0.4)

    for path, text in man_pages(args.man_root, "ja"):
        if full("japanese"):
            break
        take("japanese", path, chunk(text, rng_for(path)))

    # Mixed chat: the split follows the Chinese page the message is built around.
    for source, text in mixed_chat(zh_paras, en_paras, code_snips):
        if full("mixed_zh_en"):
            break
        take("mixed_zh_en", source, [text])

    words = [w for _, p in en_paras[:300] for w in re.findall(r"[A-Za-z]{3,}", p)] or ["event"]
    for path, text in logs(words):
        if full("logs"):
            break
        take("logs", path, chunk(text, rng_for(path)))

    # Symbols and emoji (not a target class; calibrates the rate of everything else).
    dirs = sorted(glob.glob("/usr/lib/python3.11/*/") + glob.glob("/usr/share/doc/*/"))[:200]
    for i, d in enumerate(dirs):
        source = "symbols:" + d
        take("x_symbols", source, [symbols_text(source, rng_for(source), words)])

    # Extra scripts (not target classes): Traditional Chinese, Korean, Russian, German man pages.
    for lang, cls, root in [("zh_TW", "x_zh_tw", args.man_root), ("ko", "x_korean", "/usr/share/man"),
                            ("ru", "x_russian", "/usr/share/man"), ("de", "x_german", "/usr/share/man")]:
        n = 0
        for path in sorted(glob.glob(os.path.join(root, lang, "man*", "*"))):
            src = read(path)
            if not src:
                continue
            text = roff_to_text(src)
            msgs = chunk(text, rng_for(path))
            take(cls, path, msgs)
            n += sum(len(m) for m in msgs)
            if n > args.budget // 3:
                break

    with open(args.out, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    for key in sorted(budget):
        print("%-12s %-5s %9d bytes" % (key[0], key[1], budget[key]), file=sys.stderr)


if __name__ == "__main__":
    main()
