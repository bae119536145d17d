//! tiktoken-rs (the oracle) vs bpe-openai vs our counter on the benchmark's tokenizer corpus: best
//! and median of 7 passes, one thread and all cores, count equality per string, first-use latency.

use context_editor_core::Encoding;
use rayon::prelude::*;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).unwrap_or("/tmp/corpus.json".into());
    let texts: Vec<String> = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let mb = bytes as f64 / 1e6;
    println!("corpus: {} strings, {:.2} MB", texts.len(), mb);

    let rss = || -> f64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    let rss0 = rss();
    let t0 = Instant::now();
    let tk = tiktoken_rs::o200k_base_singleton();
    let rss_tk = rss();
    let tk_init = t0.elapsed().as_secs_f64() * 1e3;
    if std::env::var_os("INIT_SPLIT").is_some() {
        let t0 = Instant::now();
        let mut n = 0usize;
        for r in 0..204_000u32 {
            if let Ok(b) = tk.decode_bytes(&[r]) {
                n += b.len();
            }
        }
        println!("decode_bytes over every rank: {:.0} ms ({n} bytes)", t0.elapsed().as_secs_f64() * 1e3);
    }
    let t0 = Instant::now();
    let _ = context_editor_core::pieces("o200k_base", "warm up").count();
    let classes_init = t0.elapsed().as_secs_f64() * 1e3;
    let t0 = Instant::now();
    let _ = Encoding::O200kBase.count("warm up");
    let ours_init = t0.elapsed().as_secs_f64() * 1e3;
    let rss_ours = rss();
    println!(
        "RSS: {rss0:.0} MiB at start, +{:.0} MiB for tiktoken-rs's o200k singleton, +{:.0} MiB for our o200k table",
        rss_tk - rss0,
        rss_ours - rss_tk
    );
    let t0 = Instant::now();
    let bpe = bpe_openai::o200k_base();
    let _ = bpe.count("warm up");
    let bpe_init = t0.elapsed().as_secs_f64() * 1e3;
    let t0 = Instant::now();
    let _ = Encoding::Cl100kBase.count("warm up");
    let cl_init = t0.elapsed().as_secs_f64() * 1e3;
    println!(
        "first use: tiktoken-rs o200k singleton {tk_init:.0} ms; ours on top of it: character classes {classes_init:.0} ms, rank table {ours_init:.0} ms; bpe-openai o200k {bpe_init:.0} ms; ours cl100k (incl. its tiktoken-rs singleton) {cl_init:.0} ms"
    );

    let run = |name: &str, f: &dyn Fn() -> Vec<usize>| -> Vec<usize> {
        let mut times = Vec::new();
        let mut out = Vec::new();
        for _ in 0..7 {
            let t0 = Instant::now();
            out = f();
            times.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        let (best, med) = (times[0], times[times.len() / 2]);
        println!("{name:52} median {med:7.1} ms  best {best:7.1} ms  {:6.1} MB/s (median)", mb / (med / 1e3));
        out
    };
    let a = run("tiktoken-rs encode_ordinary (1 thread)", &|| texts.iter().map(|t| tk.encode_ordinary(t).len()).collect());
    let pieces = run("ours: pre-tokenizer alone (1 thread)", &|| {
        texts.iter().map(|t| context_editor_core::pieces("o200k_base", t).count()).collect()
    });
    let _ = pieces;
    let o1 = run("ours: Encoding::count (1 thread)", &|| texts.iter().map(|t| Encoding::O200kBase.count(t) as usize).collect());
    let oc = run("ours: count_many on batches of 40 strings (1 thread)", &|| {
        refs.chunks(40).flat_map(|c| Encoding::O200kBase.count_many(c)).map(|n| n as usize).collect()
    });
    let om = run("ours: Encoding::count_many (all cores)", &|| {
        Encoding::O200kBase.count_many(&refs).into_iter().map(|n| n as usize).collect()
    });
    if std::env::var_os("PIECE_STATS").is_some() {
        let (mut n, mut multi, mut multi_bytes, mut long) = (0usize, 0usize, 0usize, 0usize);
        let mut distinct = std::collections::HashSet::new();
        let mut lens = std::collections::BTreeMap::new();
        for t in &texts {
            for p in context_editor_core::pieces("o200k_base", t) {
                n += 1;
                *lens.entry(p.len().min(20)).or_insert(0usize) += 1;
                if p.len() > 15 { long += 1; }
                if Encoding::O200kBase.count(p) > 1 {
                    multi += 1;
                    multi_bytes += p.len();
                    distinct.insert(p);
                }
            }
        }
        println!("pieces {n}, >15 bytes {long}, multi-token {multi} ({multi_bytes} bytes, {} distinct); lengths {lens:?}", distinct.len());
        return;
    }
    if std::env::var_os("ONLY_OURS").is_some() {
        // For profiling: `ONLY_OURS=1 perf record … -- corpus.json`.
        for _ in 0..5 {
            let _ = run("ours: count_many on batches of 40 strings (1 thread)", &|| {
                refs.chunks(40).flat_map(|c| Encoding::O200kBase.count_many(c)).map(|n| n as usize).collect()
            });
        }
        return;
    }
    let b1 = run("bpe-openai count (1 thread)", &|| texts.iter().map(|t| bpe.count(t)).collect());
    let bp = run("bpe-openai count (rayon, all cores)", &|| texts.par_iter().map(|t| bpe.count(t)).collect());
    let tp = run("tiktoken-rs encode_ordinary (rayon, all cores)", &|| texts.par_iter().map(|t| tk.encode_ordinary(t).len()).collect());
    let tk_cl = tiktoken_rs::cl100k_base_singleton();
    let cl_ref = run("cl100k: tiktoken-rs encode_ordinary (1 thread)", &|| texts.iter().map(|t| tk_cl.encode_ordinary(t).len()).collect());
    let cl_ours = run("cl100k: ours Encoding::count_many (all cores)", &|| {
        Encoding::Cl100kBase.count_many(&refs).into_iter().map(|n| n as usize).collect()
    });
    println!(
        "cl100k strings whose count differs from tiktoken-rs: {}",
        cl_ours.iter().zip(&cl_ref).filter(|(p, q)| p != q).count()
    );
    let diff = |x: &Vec<usize>| x.iter().zip(&a).filter(|(p, q)| p != q).count();
    println!(
        "strings whose count differs from tiktoken-rs: ours 1 thread {}, ours batches {}, ours all cores {}, bpe-openai {}, bpe-openai par {}, tiktoken-rs par {}",
        diff(&o1), diff(&oc), diff(&om), diff(&b1), diff(&bp), diff(&tp)
    );
}
