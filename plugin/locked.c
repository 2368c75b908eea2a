/*
 * Locked read-modify-writes, decided from an instruction's bytes: the
 * legacy prefixes (any order), then a REX prefix, then the opcode, one byte
 * or 0x0f and one, then ModRM. The Intel SDM (vol. 2A, LOCK) lists the
 * instructions a LOCK prefix may precede, with a memory destination; on any
 * other the prefix raises #UD. XCHG with a memory operand locks without it.
 * VEX and EVEX instructions (0xc4, 0xc5, 0x62 in 64-bit code) never lock.
 */
#include "locked.h"

static int legacy_prefix(unsigned char b)
{
    switch (b) {
    case 0xf0: /* LOCK */
    case 0xf2: /* REPNE */
    case 0xf3: /* REP */
    case 0x2e: /* CS */
    case 0x36: /* SS */
    case 0x3e: /* DS */
    case 0x26: /* ES */
    case 0x64: /* FS */
    case 0x65: /* GS */
    case 0x66: /* operand size */
    case 0x67: /* address size */
        return 1;
    }
    return 0;
}

static int rex_prefix(unsigned char b)
{
    return (b & 0xf0) == 0x40;
}

/* Whether the opcode (after 0x0f when two_byte), with ModRM's reg field,
 * is one a LOCK prefix may precede (its ModRM names memory: checked by the
 * caller). */
static int lockable(int two_byte, unsigned char op, unsigned reg)
{
    if (two_byte) {
        switch (op) {
        case 0xab: /* BTS r/m, r */
        case 0xb3: /* BTR r/m, r */
        case 0xbb: /* BTC r/m, r */
        case 0xb0: /* CMPXCHG r/m8, r8 */
        case 0xb1: /* CMPXCHG r/m, r */
        case 0xc0: /* XADD r/m8, r8 */
        case 0xc1: /* XADD r/m, r */
            return 1;
        case 0xba: /* /5 BTS, /6 BTR, /7 BTC r/m, imm8 (/4 BT) */
            return reg >= 5;
        case 0xc7: /* /1 CMPXCHG8B, CMPXCHG16B */
            return reg == 1;
        }
        return 0;
    }
    switch (op) {
    case 0x00: case 0x01: /* ADD r/m, r */
    case 0x08: case 0x09: /* OR */
    case 0x10: case 0x11: /* ADC */
    case 0x18: case 0x19: /* SBB */
    case 0x20: case 0x21: /* AND */
    case 0x28: case 0x29: /* SUB */
    case 0x30: case 0x31: /* XOR */
        return 1;
    case 0x80: case 0x81: case 0x83: /* /0../6 ADD..XOR r/m, imm (/7 CMP) */
        return reg != 7;
    case 0xf6: case 0xf7: /* /2 NOT, /3 NEG (/0 TEST, /4.. MUL, DIV) */
        return reg == 2 || reg == 3;
    case 0xfe: case 0xff: /* /0 INC, /1 DEC (/2.. CALL, JMP, PUSH) */
        return reg <= 1;
    }
    return 0;
}

enum lock_kind lock_kind(const unsigned char *insn, size_t n)
{
    size_t i = 0;
    int lock = 0, ds = 0;
    /* A REX prefix before a legacy one is ignored by the CPU: scanning
     * both together finds every legacy prefix either way. */
    for (; i < n && (legacy_prefix(insn[i]) || rex_prefix(insn[i])); i++) {
        lock |= insn[i] == 0xf0;
        ds |= insn[i] == 0x3e;
    }
    if (i >= n) {
        return LOCK_NONE;
    }
    unsigned char op = insn[i++];
    int two_byte = op == 0x0f;
    if (op == 0xc4 || op == 0xc5 || op == 0x62) {
        return LOCK_NONE;
    }
    if (two_byte) {
        if (i >= n) {
            return LOCK_NONE;
        }
        op = insn[i++];
    }
    if (i >= n || insn[i] >> 6 == 3) {
        /* no ModRM, or it names a register */
        return LOCK_NONE;
    }
    unsigned reg = (insn[i] >> 3) & 7;
    if (!two_byte && (op == 0x86 || op == 0x87)) {
        return LOCK_XCHG;
    }
    if (!lockable(two_byte, op, reg)) {
        return LOCK_NONE;
    }
    if (lock) {
        return LOCK_PREFIXED;
    }
    return ds ? LOCK_UNLOCKED_SITE : LOCK_NONE;
}
