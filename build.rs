//! Link arguments for the freestanding binary only (never the library or the
//! tests, which link against std and libc as usual).

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    println!("cargo:rerun-if-changed=build.rs");
    if os != "linux" {
        return;
    }
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    // The gnu targets link through the C compiler driver (cc) unless
    // .cargo/config.toml names rust-lld as their linker (riscv64, which has
    // no cross cc here); the musl targets link with rust-lld directly.
    // Cargo tells a build script the linker it resolved in RUSTC_LINKER.
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let linker = std::env::var("RUSTC_LINKER").unwrap_or_default();
    let lld = matches!(
        std::path::Path::new(&linker)
            .file_stem()
            .and_then(|s| s.to_str()),
        Some("rust-lld" | "ld.lld")
    );
    let via_cc = env == "gnu" && !lld;
    if via_cc {
        // We provide our own _start (src/main.rs): no crt1.o/crti.o.
        println!("cargo:rustc-link-arg-bins=-nostartfiles");
    }
    // No libc at all: every syscall is inline asm, mem* live in src/mem.rs.
    println!("cargo:rustc-link-arg-bins=-nostdlib");
    // One self-contained file to copy to a test box: no dynamic loader.
    println!("cargo:rustc-link-arg-bins=-static");
    if via_cc {
        // A static-PIE would need its own relocations applied at start-up,
        // which nothing does here: link at a fixed address (ET_EXEC). The
        // code is compiled for it (relocation-model=static, in
        // .cargo/config.toml); rust-lld is given no crt objects and
        // links a fixed-address executable for relocation-model=static.
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    // panic = "abort": nothing ever unwinds, so the unwind tables (.eh_frame,
    // ~9 KiB, mostly from the precompiled core) are dead weight in a binary
    // with a size budget. A linker script fragment discards them, and
    // .comment (compiler and linker version strings, which `strip` keeps);
    // INSERT keeps the linker's default script for everything else.
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let script = std::path::Path::new(&out).join("discard-eh-frame.ld");
    std::fs::write(
        &script,
        "SECTIONS { /DISCARD/ : { *(.eh_frame) *(.eh_frame_hdr) *(.comment) } } INSERT AFTER .text;\n",
    )
    .expect("write the linker script");
    let script = script.display();
    if via_cc {
        println!("cargo:rustc-link-arg-bins=-Wl,--no-eh-frame-hdr");
        println!("cargo:rustc-link-arg-bins=-Wl,-T,{script}");
    } else {
        println!("cargo:rustc-link-arg-bins=--no-eh-frame-hdr");
        println!("cargo:rustc-link-arg-bins=-T{script}");
    }
}
