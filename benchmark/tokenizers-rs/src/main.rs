//! tiktoken-rs (the oracle) vs bpe-openai on the benchmark's tokenizer corpus: best of 5 passes,
//! one thread and all cores (rayon), and count equality per string.

use std::time::Instant;
use rayon::prelude::*;

fn main() {
    let path = std::env::args().nth(1).unwrap_or("/tmp/corpus.json".into());
    let texts: Vec<String> = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let mb = bytes as f64 / 1e6;
    println!("corpus: {} strings, {:.2} MB", texts.len(), mb);
    let tk = tiktoken_rs::o200k_base().unwrap();
    let bpe = bpe_openai::o200k_base();
    let _ = tk.encode_ordinary("warm up");
    let _ = bpe.count("warm up");
    let best = |name: &str, f: &dyn Fn() -> Vec<usize>| -> Vec<usize> {
        let mut b = f64::MAX;
        let mut out = Vec::new();
        for _ in 0..5 {
            let t0 = Instant::now();
            out = f();
            b = b.min(t0.elapsed().as_secs_f64() * 1e3);
        }
        println!("{name:50} best {b:8.1} ms  {:6.1} MB/s", mb / (b / 1e3));
        out
    };
    let a = best("tiktoken-rs encode_ordinary (1 thread)", &|| texts.iter().map(|t| tk.encode_ordinary(t).len()).collect());
    let b2 = best("bpe-openai count (1 thread)", &|| texts.iter().map(|t| bpe.count(t)).collect());
    let c = best("tiktoken-rs encode_ordinary (rayon, all cores)", &|| texts.par_iter().map(|t| tk.encode_ordinary(t).len()).collect());
    let d = best("bpe-openai count (rayon, all cores)", &|| texts.par_iter().map(|t| bpe.count(t)).collect());
    let diff = |x: &Vec<usize>| x.iter().zip(&a).filter(|(p, q)| p != q).count();
    println!("differences vs tiktoken-rs: bpe-openai {}, tiktoken-rs par {}, bpe par {}", diff(&b2), diff(&c), diff(&d));
}
