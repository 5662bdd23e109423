// Calls Swift cannot make itself (prctl is variadic; mallinfo2 returns a struct).
#include <sys/prctl.h>
#include <sys/resource.h>

/// No core dumps and no ptrace attach by other processes of the same user: a password in
/// memory must not end up in a core file.
static inline int farcast_forbid_core_dumps(void) {
    struct rlimit none = { 0, 0 };
    int a = setrlimit(RLIMIT_CORE, &none);
    int b = prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    return a == 0 && b == 0 ? 0 : -1;
}

#include <malloc.h>

/// Bytes malloc has handed out and not had back, in every arena and mmap'd block (mallinfo2
/// returns a struct, which Swift cannot take from a C function it imports by name alone).
static inline size_t farcast_heap_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

/// Names the calling thread for the kernel (top -H, gdb, /proc/self/task/N/comm): Foundation's
/// Thread.name setter did not always reach it (a decode worker kept its process's name in 1 of
/// about 10 ThreadSanitizer runs).
static inline int farcast_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, name, 0, 0, 0);
}
