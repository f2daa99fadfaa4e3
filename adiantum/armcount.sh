#!/bin/sh
# Instructions per byte under qemu for every variant at 512 and 4096 bytes,
# next to AES-256-XTS over aes-ct and the crates.io adiantum crate.
# usage: adiantum/armcount.sh [armv7|aarch64]   (from the workspace root)
set -eu
target=${1:-armv7}
case $target in
    armv7) triple=armv7-unknown-linux-gnueabihf ;;
    aarch64) triple=aarch64-unknown-linux-gnu ;;
    *) echo "usage: $0 [armv7|aarch64]" >&2; exit 2 ;;
esac
: "${CARGO_TARGET_DIR:=target}"
cargo build -q --release -p adiantum-ct --example armcount --target "$triple"
bin=$CARGO_TARGET_DIR/$triple/release/examples/armcount
armcount=${ARMCOUNT:-../shared/tools/armcount/armcount}
for imp in xts ref12 adiantum12 adiantum12-soft adiantum20 adiantum8 hpolyc12 hpolyc20 hpolyc8; do
    for len in 512 4096; do
        what=$("$armcount" -q "$bin" "$imp" "$len" 1 2>/dev/null || true)
        line=$("$armcount" --iters 10,20 --bytes "$len" "$bin" "$imp" "$len" '{N}' 2>&1 | grep per_byte || echo "n/a")
        pb=$(echo "$line" | sed -n 's/.*per_byte=\([0-9.]*\).*/\1/p')
        pi=$(echo "$line" | sed -n 's/.*per_iter=\([0-9.]*\).*/\1/p')
        echo "$target $imp $len per_byte=$pb per_msg=$pi"
    done
done
