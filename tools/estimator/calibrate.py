#!/usr/bin/env python3
"""Fits the estimator's per-feature rates to exact token counts (pure Python, no dependencies).

Input: the TSV written by `estimator-tool features` (one row per message: class, split, sizes, exact
o200k_base and cl100k_base counts, and the estimator's feature counts). Only rows of the `cal` split
are used. The fit is a weighted least-squares fit of exact counts on feature counts:

  * each message is weighted by 1 / exact², so the fit minimises the *relative* error per message;
  * each class gets the same total weight, so a large class does not drown the others;
  * two stages: first every rate on the seven target classes (English, code, JSON, Chinese,
    Japanese, mixed chat, logs); then only the rates of hangul, accented-Latin and other-alphabet
    words and of other characters on the extra classes (prefixed `x_`: Korean, German, Russian man
    pages, generated emoji/symbol/box-drawing text), with
    every other rate held, so German compounds cannot skew the English word rates;
  * a small ridge term pulls each rate towards a prior, so a feature that barely occurs in the
    calibration text keeps a sensible value instead of an arbitrary one;
  * rates must be >= 0: a negative rate is pinned to 0 and the fit repeated.

Output: the `Rates` constants for crates/core/src/tokenizer/estimate.rs, and the calibration-split error per
class (the held-out accuracy comes from `estimator-tool eval`).

Usage: python3 tools/estimator/calibrate.py /tmp/est/features.tsv [o200k|cl100k]... \
         [--write crates/core/src/tokenizer/estimate.rs]
"""

import sys

META = ["class", "split", "utf16", "bytes", "o200k", "cl100k"]
RIDGE = 1e-4
# Priors: tokens per unit, before seeing data (a piece ≈ 1 token, a character of a dense script ≈ 1).
PRIOR = {"long_letters": 0.25, "caps_letters": 0.1, "hex_chars": 0.6, "b64_chars": 0.7,
         "newline_extra": 0.3, "punct_prefix": 0.3, "underscore_prefix": 0.3, "punct_chars": 0.3, "punct_newline": 0.0,
         "repeat_chars": 0.1, "ext_chars": 0.3, "script_chars": 0.3, "other_bytes": 0.3, "other_chars": 0.5,
         "cjk_runs": 0.0}


# Rates held at a measured value instead of fitted. CJK punctuation (`，。：（）「」`) is one token
# per mark in both encodings (checked mark by mark with `estimator-tool count`); in man pages
# nearly every CJK run ends at one, so a free fit cannot tell a run's boundary cost from the
# mark's and charges short runs (UI strings, chat) too much.
PINNED = {"cjk_punct": 1.0}


def load(path):
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        rows = [line.rstrip("\n").split("\t") for line in f]
    names = header[len(META):]
    data = []
    for r in rows:
        meta = dict(zip(META, r[: len(META)]))
        data.append((meta, [float(x) for x in r[len(META):]]))
    return names, data


def solve(a, b):
    """Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        piv = m[c][c]
        if abs(piv) < 1e-18:
            continue
        for r in range(c + 1, n):
            f = m[r][c] / piv
            if f:
                row_r, row_c = m[r], m[c]
                for k in range(c, n + 1):
                    row_r[k] -= f * row_c[k]
    x = [0.0] * n
    for c in range(n - 1, -1, -1):
        s = m[c][n] - sum(m[c][k] * x[k] for k in range(c + 1, n))
        x[c] = s / m[c][c] if abs(m[c][c]) > 1e-18 else 0.0
    return x


# Features only the extra scripts exercise; fitted in a second stage on the `x_` classes alone, with
# every other rate held at its stage-one value (so German compounds do not skew English word rates).
SCRIPT_FEATURES = {"hangul", "ext_words", "ext_chars", "script_words", "script_chars", "other_chars",
                   "other_bytes"}


def fit(names, data, target):
    """Stage one: every rate on the seven target classes. Stage two: SCRIPT_FEATURES on `x_` classes."""
    main = fit_stage(names, data, target, lambda c: not c.startswith("x_"), None)
    free = [name in SCRIPT_FEATURES for name in names]
    return fit_stage(names, data, target, lambda c: c.startswith("x_") and c != "x_zh_tw",
                     (main, free))


def fit_stage(names, data, target, use_class, base):
    cal = [(meta, x) for meta, x in data
           if meta["split"] == "cal" and float(meta[target]) > 0 and use_class(meta["class"])]
    if base:
        # Hold the non-free rates: fit the residual on the free features only.
        rates0, free = base
        cal = [(dict(meta, residual=float(meta[target]) - sum(r * v for r, v, f in zip(rates0, x, free) if not f)),
                [v if f else 0.0 for v, f in zip(x, free)]) for meta, x in cal]
    per_class = {}
    for meta, _ in cal:
        per_class[meta["class"]] = per_class.get(meta["class"], 0) + 1
    n = len(names)
    xtx = [[0.0] * n for _ in range(n)]
    xty = [0.0] * n
    for meta, x in cal:
        exact = float(meta[target])
        y = meta.get("residual", exact)
        w = 1.0 / per_class[meta["class"]] / (exact * exact)
        nz = [(i, v) for i, v in enumerate(x) if v]
        for i, vi in nz:
            xty[i] += w * vi * y
            row = xtx[i]
            for j, vj in nz:
                row[j] += w * vi * vj
    prior = [PRIOR.get(name, 1.0) for name in names]
    scale = sum(xtx[i][i] for i in range(n)) / n
    fixed = {names.index(k): v for k, v in PINNED.items() if k in names}
    while True:
        a = [row[:] for row in xtx]
        b = xty[:]
        for i in range(n):
            a[i][i] += RIDGE * scale
            b[i] += RIDGE * scale * prior[i]
        if base:
            for i, f in enumerate(base[1]):
                if not f:
                    fixed[i] = base[0][i]
        for i, v in fixed.items():
            a[i] = [0.0] * n
            a[i][i] = 1.0
            b[i] = v
        rates = solve(a, b)
        neg = [i for i, r in enumerate(rates) if r < 0 and i not in fixed]
        if not neg:
            return rates
        for i in neg:
            fixed[i] = 0.0


def report(names, data, target, rates, split):
    by = {}
    for meta, x in data:
        if meta["split"] != split:
            continue
        est = max(1, round(sum(r * v for r, v in zip(rates, x))))
        exact = int(meta[target])
        approx = -(-int(meta["utf16"]) // 4)
        t = by.setdefault(meta["class"], [0, 0, 0, 0, 0])
        t[0] += exact
        t[1] += est
        t[2] += approx
        if int(meta["utf16"]) > 200:
            t[3] += 1
            t[4] += abs(est - exact) <= 0.25 * exact
    print("# %s, %s split: class, exact, chars/4 error, estimate error, share of messages >200 chars within 25%%"
          % (target, split))
    for cls, (exact, est, approx, long, ok) in sorted(by.items()):
        print("#   %-12s %9d  %+6.1f%%  %+6.1f%%  %5.1f%%" % (
            cls, exact, 100.0 * (approx - exact) / exact, 100.0 * (est - exact) / exact,
            100.0 * ok / max(1, long)))


def rust_const(const, names, rates):
    lines = ["pub const %s: Rates = Rates {" % const]
    for name, r in zip(names, rates):
        text = ("%.4f" % r).rstrip("0")
        lines.append("  %s: %s," % (name, text + "0" if text.endswith(".") else text))
    lines.append("};")
    return "\n".join(lines)


def main():
    args = sys.argv[1:]
    write = None
    if "--write" in args:
        i = args.index("--write")
        write = args[i + 1]
        del args[i:i + 2]
    path = args[0] if args else "/tmp/est/features.tsv"
    targets = args[1:] or ["o200k", "cl100k"]
    names, data = load(path)
    for target in targets:
        rates = fit(names, data, target)
        const = "O200K_RATES" if target == "o200k" else "CL100K_RATES"
        block = rust_const(const, names, rates)
        print(block)
        report(names, data, target, rates, "cal")
        report(names, data, target, rates, "held")
        if write:
            # Replace the constant's body in estimate.rs, keeping its doc comment.
            src = open(write, encoding="utf-8").read()
            start = src.index("pub const %s: Rates = " % const)
            end = src.index("\n};", start) + 3 if "Rates {" in src[start:start + 60] else src.index(";", start) + 1
            src = src[:start] + block + src[end:]
            open(write, "w", encoding="utf-8").write(src)
            print("# wrote %s into %s" % (const, write))


if __name__ == "__main__":
    main()
