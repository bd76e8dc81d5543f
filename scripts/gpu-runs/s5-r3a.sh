#!/usr/bin/env bash
# Lead, 2026-11-24 (fifth session), call 3a: the helpers' rand5 and blas4 scripts on main after
# their merges (staged with pack --bins --workspace). Full logs come back in logs.tgz.
set -u
R=${OUT:-/tmp/s5r3a}; mkdir -p "$R"
mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz
OUT=/tmp/rand5 bash crates/rand/gpu/rand5.sh > /tmp/rand5.txt 2>&1; echo "rand5.sh rc=$?"; tail -48 /tmp/rand5.txt
OUT=/tmp/blas4 bash crates/blas/gpu/blas4.sh > /tmp/blas4.txt 2>&1; echo "blas4.sh rc=$?"; tail -32 /tmp/blas4.txt
tar -czf "$R/logs.tgz" /tmp/rand5* /tmp/blas4* 2>/dev/null
echo "done at $SECONDS s"
