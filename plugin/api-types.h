/*
 * The types of QEMU's TCG plugin API, version 1, that plugin/cost.c uses,
 * written by hand: Debian ships QEMU without include/qemu/qemu-plugin.h.
 * Transcribed from QEMU 7.2's header (Debian bookworm's qemu
 * 1:7.2+dfsg-7+deb12u18); plugin/check-api.c has the compiler compare every
 * line here with that header (tests/cost/run.sh fetches it with apt-get
 * source). Included by api.h only; no include guard, so check-api.c can
 * include it a second time under other names.
 */

/* typedef qemu_plugin_id_t: the plugin's opaque ID */
typedef uint64_t qemu_plugin_id_t;

/* struct qemu_info_t: what QEMU tells a plugin at install */
typedef struct qemu_info_t {
    /* the guest architecture, e.g. "x86_64" */
    const char *target_name;
    /* the plugin API versions this QEMU accepts */
    struct {
        int min;
        int cur;
    } version;
    /* full system emulation (not linux-user) */
    bool system_emulation;
    union {
        struct {
            /* the vCPUs at start (-smp) */
            int smp_vcpus;
            /* the most vCPUs the machine can have */
            int max_vcpus;
        } system;
    };
} qemu_info_t;

/* enum qemu_plugin_cb_flags: whether a callback reads the CPU's registers */
enum qemu_plugin_cb_flags {
    QEMU_PLUGIN_CB_NO_REGS,
    QEMU_PLUGIN_CB_R_REGS,
    QEMU_PLUGIN_CB_RW_REGS,
};

/* enum qemu_plugin_op: the one inline operation, add an immediate to a u64 */
enum qemu_plugin_op {
    QEMU_PLUGIN_INLINE_ADD_U64,
};
