/*
 * hwcapmask.c - LD_PRELOAD shim used by `cargo xtask test`.
 *
 * Every qemu-aarch64 CPU model has the ARMv8 crypto extensions and none
 * can switch them off, so to test the crypto-less code paths (vpaes,
 * bsaes, 8-bit pmull GHASH: Raspberry Pi 4 class CPUs) we hide them from
 * feature detection instead. Rust's std, the cpufeatures crate and libc
 * all ask getauxval(AT_HWCAP / AT_HWCAP2); this wrapper clears the crypto
 * bits in its answer. The instructions themselves still work if code uses
 * them without asking, so this tests detection, not the hardware.
 *
 * Built by xtask: <cross>-gcc -O2 -shared -fPIC -o hwcapmask-<triple>.so hwcapmask.c -ldl
 * Used as:  QEMU_SET_ENV=LD_PRELOAD=/abs/path/hwcapmask-<triple>.so qemu-aarch64 ...
 * Bit numbers: Linux arch/arm64/include/uapi/asm/hwcap.h (and arm's).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/auxv.h>

#if defined(__aarch64__)
/* AT_HWCAP: AES 3, PMULL 4, SHA1 5, SHA2 6, SHA3 17, SM3 18, SM4 19, SHA512 21 */
#define CLEAR_HWCAP ((1UL << 3) | (1UL << 4) | (1UL << 5) | (1UL << 6) | \
                     (1UL << 17) | (1UL << 18) | (1UL << 19) | (1UL << 21))
/* AT_HWCAP2: SVEAES 2, SVEPMULL 3, SVESHA3 5, SVESM4 6 */
#define CLEAR_HWCAP2 ((1UL << 2) | (1UL << 3) | (1UL << 5) | (1UL << 6))
#elif defined(__arm__)
/* 32-bit ARM keeps the crypto bits in AT_HWCAP2: AES 0, PMULL 1, SHA1 2, SHA2 3 */
#define CLEAR_HWCAP 0UL
#define CLEAR_HWCAP2 ((1UL << 0) | (1UL << 1) | (1UL << 2) | (1UL << 3))
#else
#error "hwcapmask.c is for aarch64 and arm Linux guests"
#endif

unsigned long getauxval(unsigned long type)
{
    static unsigned long (*real)(unsigned long);
    if (!real)
        real = (unsigned long (*)(unsigned long))dlsym(RTLD_NEXT, "getauxval");
    unsigned long v = real ? real(type) : 0;
    if (type == AT_HWCAP)
        v &= ~CLEAR_HWCAP;
    else if (type == AT_HWCAP2)
        v &= ~CLEAR_HWCAP2;
    return v;
}
