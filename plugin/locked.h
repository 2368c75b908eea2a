/*
 * Whether an x86 instruction is a locked read-modify-write, from its bytes
 * (docs/cost.md, "Locked instructions").
 */
#ifndef URING_REPRO_COST_LOCKED_H
#define URING_REPRO_COST_LOCKED_H

#include <stddef.h>

enum lock_kind {
    /* not a locked read-modify-write */
    LOCK_NONE,
    /* a LOCK prefix (0xf0) on an instruction that can take one: ADD, ADC,
     * AND, BTC, BTR, BTS, CMPXCHG, CMPXCHG8B/16B, DEC, INC, NEG, NOT, OR,
     * SBB, SUB, XOR, XADD with a memory destination */
    LOCK_PREFIXED,
    /* XCHG with a memory operand: locked without a prefix */
    LOCK_XCHG,
    /* one of those instructions with a DS prefix (0x3e) and no LOCK: what a
     * kernel booted on one CPU makes of its LOCK_PREFIX sites
     * (alternatives_smp_unlock() turns each 0xf0 into 0x3e) */
    LOCK_UNLOCKED_SITE,
};

/* The instruction's kind, from its n bytes (64-bit code; in 16- and 32-bit
 * code the same rules hold but for 0x40..0x4f, which are then INC and DEC
 * of a register: an instruction of their own, so never locked either). */
enum lock_kind lock_kind(const unsigned char *insn, size_t n);

#endif
