// Calls Swift cannot make itself (prctl is variadic).
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
