//! The asm-generic syscall numbers (include/uapi/asm-generic/unistd.h):
//! the table aarch64 and riscv64 share. Only the calls this crate makes.

pub mod nr {
    pub const EVENTFD2: usize = 19;
    pub const EPOLL_CREATE1: usize = 20;
    pub const EPOLL_CTL: usize = 21;
    pub const EPOLL_PWAIT: usize = 22;
    pub const IOCTL: usize = 29;
    pub const MKDIRAT: usize = 34;
    pub const UNLINKAT: usize = 35;
    pub const LINKAT: usize = 37;
    pub const MOUNT: usize = 40;
    pub const STATFS: usize = 43;
    pub const OPENAT: usize = 56;
    pub const CLOSE: usize = 57;
    pub const LSEEK: usize = 62;
    pub const READ: usize = 63;
    pub const WRITE: usize = 64;
    pub const PIPE2: usize = 59;
    pub const PREAD64: usize = 67;
    pub const NEWFSTATAT: usize = 79;
    pub const SYNC: usize = 81;
    pub const EXIT: usize = 93;
    pub const EXIT_GROUP: usize = 94;
    pub const FUTEX: usize = 98;
    pub const NANOSLEEP: usize = 101;
    pub const CLOCK_GETTIME: usize = 113;
    pub const SCHED_SETAFFINITY: usize = 122;
    pub const SCHED_GETAFFINITY: usize = 123;
    pub const KILL: usize = 129;
    pub const RT_SIGACTION: usize = 134;
    pub const RT_SIGPROCMASK: usize = 135;
    pub const RT_SIGRETURN: usize = 139;
    pub const REBOOT: usize = 142;
    pub const UNAME: usize = 160;
    pub const GETCPU: usize = 168;
    pub const GETPID: usize = 172;
    pub const SOCKETPAIR: usize = 199;
    pub const MUNMAP: usize = 215;
    pub const CLONE: usize = 220;
    pub const MMAP: usize = 222;
    pub const MPROTECT: usize = 226;
    pub const RENAMEAT2: usize = 276;
    pub const IO_URING_SETUP: usize = 425;
    pub const IO_URING_ENTER: usize = 426;
    pub const IO_URING_REGISTER: usize = 427;
}
