# Where tests/kernel/run.sh keeps its kernels, sourced by it and by lost-wakeup.sh (bash),
# so the hunt finds what run.sh built: CACHE/VERSION/NAME/OBJ/IMAGE.
readonly DEFAULT_CACHE=${URING_REPRO_KERNEL_CACHE:-/var/tmp/uring-repro-kernel}
# The source the fixtures were made from; when the archive no longer has it, run.sh takes
# the candidate with a warning (the assertions hold on any 6.12; the exact figures may move).
readonly DEFAULT_SOURCE_VERSION=6.12.117-1~deb12u1
readonly OBJ=.uring-repro-obj # build-kernel.sh's default objdir, inside each tree
readonly IMAGE=arch/x86/boot/bzImage
