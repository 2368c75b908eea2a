/*
 * QEMU's TCG plugin API, version 1: the declarations plugin/cost.c uses and
 * nothing else, written by hand (Debian ships no plugin header). Each one is
 * QEMU 7.2's, word for word; plugin/check-api.c proves it with the compiler
 * against the header of the QEMU Debian ships (tests/cost/run.sh), and every
 * function named here must be a dynamic symbol of the qemu-system binary
 * (the same test reads them with nm -D).
 *
 * QEMU refuses a plugin whose qemu_plugin_version it does not support:
 * 7.2 accepts 1 only; 9.0 and later want 2 or more, where several of these
 * functions changed or went away.
 */
#ifndef URING_REPRO_QEMU_PLUGIN_API_H
#define URING_REPRO_QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The API version this plugin is written against. */
#define QEMU_PLUGIN_VERSION 1
/* QEMU finds qemu_plugin_install and qemu_plugin_version by name. */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/*
 * With QEMU's own header included first (check-api.c; QEMU 7.2 guards it with
 * QEMU_QEMU_PLUGIN_H), its types stand and ours are checked against them
 * there; the prototypes below are then redeclarations, which gcc refuses if
 * they differ.
 */
#ifndef QEMU_QEMU_PLUGIN_H
#include "api-types.h"
#endif

/* opaque handles, valid only during the translation callback */
struct qemu_plugin_tb;
struct qemu_plugin_insn;

/* the plugin's own symbols: the API version, and its entry point */
extern QEMU_PLUGIN_EXPORT int qemu_plugin_version;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv);

/* callbacks: at exit with user data; per translation; per execution */
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
                                               struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
                                            void *userdata);

/* called for every block QEMU translates */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           qemu_plugin_vcpu_tb_trans_cb_t cb);
/* the block's instruction count, its first address, its idx-th instruction */
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *
qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
/* an instruction's bytes, their count, its address */
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
/* at every entry into the block: add imm to *ptr */
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
                                              enum qemu_plugin_op op,
                                              void *ptr, uint64_t imm);
/* before every execution of the instruction: add imm to *ptr, or call cb */
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
                                                enum qemu_plugin_op op,
                                                void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags,
                                            void *userdata);
/* called once when QEMU exits */
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
                                    qemu_plugin_udata_cb_t cb, void *userdata);

#endif
