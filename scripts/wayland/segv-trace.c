// LD_PRELOAD=segv-trace.so PROGRAM: on SIGSEGV prints the faulting address, the registers that
// carry the first arguments, and a backtrace (nearest exported symbol + offset per frame), then
// dies with the signal. catchsegv was removed in glibc 2.35, the viewer turns core dumps off,
// and gdb attached changes the timing enough to hide the crash.
// cc -shared -fPIC -O1 -o segv-trace.so segv-trace.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static void frame(int fd, void *pc) {
    Dl_info info;
    char line[512];
    if (dladdr(pc, &info) && info.dli_fname) {
        snprintf(line, sizeof line, "  %p %s(%s+0x%lx) [file offset 0x%lx]\n", pc, info.dli_fname,
                 info.dli_sname ? info.dli_sname : "?",
                 info.dli_sname ? (unsigned long)((char *)pc - (char *)info.dli_saddr) : 0UL,
                 (unsigned long)((char *)pc - (char *)info.dli_fbase));
    } else {
        snprintf(line, sizeof line, "  %p ?\n", pc);
    }
    write(fd, line, strlen(line));
}

static void on_segv(int sig, siginfo_t *si, void *ctx) {
    ucontext_t *uc = ctx;
    char line[256];
    snprintf(line, sizeof line, "segv-trace: signal %d at address %p; rip %p rdi %p rsi %p rdx %p\n", sig,
             si->si_addr, (void *)uc->uc_mcontext.gregs[REG_RIP], (void *)uc->uc_mcontext.gregs[REG_RDI],
             (void *)uc->uc_mcontext.gregs[REG_RSI], (void *)uc->uc_mcontext.gregs[REG_RDX]);
    write(2, line, strlen(line));
    frame(2, (void *)uc->uc_mcontext.gregs[REG_RIP]);
    void *pcs[40];
    int n = backtrace(pcs, 40);
    for (int i = 0; i < n; i++) frame(2, pcs[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    static char stack[65536];
    stack_t ss = { .ss_sp = stack, .ss_size = sizeof stack };
    sigaltstack(&ss, NULL);
    sa.sa_flags |= SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}
