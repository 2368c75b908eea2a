/*
 * Proves plugin/api.h against QEMU's own include/qemu/qemu-plugin.h, with the
 * compiler: tests/cost/run.sh compiles this file with that header included
 * first (gcc -std=c11 -Werror -fsyntax-only -include HEADER), taken from the
 * source package of the QEMU Debian ships.
 *
 * - api.h's prototypes, typedefs and macros are then redeclarations of
 *   QEMU's: gcc refuses any that differs ("conflicting types", a macro
 *   redefined with another value under -Werror).
 * - api-types.h's struct and enums cannot be defined twice, so they are
 *   included again under other names and compared here, field by field
 *   (offset, size, type) and value by value.
 */
#include <stddef.h>

#include "api.h"

#define qemu_info_t ours_qemu_info_t
#define qemu_plugin_cb_flags ours_qemu_plugin_cb_flags
#define qemu_plugin_op ours_qemu_plugin_op
#define QEMU_PLUGIN_CB_NO_REGS OURS_CB_NO_REGS
#define QEMU_PLUGIN_CB_R_REGS OURS_CB_R_REGS
#define QEMU_PLUGIN_CB_RW_REGS OURS_CB_RW_REGS
#define QEMU_PLUGIN_INLINE_ADD_U64 OURS_INLINE_ADD_U64
#include "api-types.h"
#undef qemu_info_t
#undef qemu_plugin_cb_flags
#undef qemu_plugin_op
#undef QEMU_PLUGIN_CB_NO_REGS
#undef QEMU_PLUGIN_CB_R_REGS
#undef QEMU_PLUGIN_CB_RW_REGS
#undef QEMU_PLUGIN_INLINE_ADD_U64

/* A field of qemu_info_t: the same offset, size and type in both. */
#define SAME_FIELD(f)                                                          \
    _Static_assert(offsetof(ours_qemu_info_t, f) == offsetof(qemu_info_t, f),  \
                   "offset of qemu_info_t." #f);                               \
    _Static_assert(sizeof(((ours_qemu_info_t *)0)->f) ==                       \
                       sizeof(((qemu_info_t *)0)->f),                          \
                   "size of qemu_info_t." #f);                                 \
    _Static_assert(__builtin_types_compatible_p(                               \
                       __typeof__(((ours_qemu_info_t *)0)->f),                 \
                       __typeof__(((qemu_info_t *)0)->f)),                     \
                   "type of qemu_info_t." #f)

_Static_assert(sizeof(ours_qemu_info_t) == sizeof(qemu_info_t), "size of qemu_info_t");
_Static_assert(_Alignof(ours_qemu_info_t) == _Alignof(qemu_info_t), "alignment of qemu_info_t");
SAME_FIELD(target_name);
SAME_FIELD(version.min);
SAME_FIELD(version.cur);
SAME_FIELD(system_emulation);
SAME_FIELD(system.smp_vcpus);
SAME_FIELD(system.max_vcpus);

_Static_assert(sizeof(enum ours_qemu_plugin_cb_flags) == sizeof(enum qemu_plugin_cb_flags),
               "size of enum qemu_plugin_cb_flags");
_Static_assert((int)OURS_CB_NO_REGS == (int)QEMU_PLUGIN_CB_NO_REGS, "QEMU_PLUGIN_CB_NO_REGS");
_Static_assert((int)OURS_CB_R_REGS == (int)QEMU_PLUGIN_CB_R_REGS, "QEMU_PLUGIN_CB_R_REGS");
_Static_assert((int)OURS_CB_RW_REGS == (int)QEMU_PLUGIN_CB_RW_REGS, "QEMU_PLUGIN_CB_RW_REGS");
_Static_assert(sizeof(enum ours_qemu_plugin_op) == sizeof(enum qemu_plugin_op),
               "size of enum qemu_plugin_op");
_Static_assert((int)OURS_INLINE_ADD_U64 == (int)QEMU_PLUGIN_INLINE_ADD_U64,
               "QEMU_PLUGIN_INLINE_ADD_U64");
