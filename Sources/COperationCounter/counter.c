// libOperationCounter (see include/OperationCounter.h). Every allocation function of glibc's malloc is counted
// (malloc, calloc, realloc, memalign, aligned_alloc, posix_memalign; free is not an allocation); flushes are
// fsync, fdatasync and msync with MS_SYNC; write calls are write, pwrite and their vector forms on regular files
// (a pipe's progress reports and the terminal are not the store's writes). Counters are relaxed atomics: the
// counts of all threads, in any order. The process's page faults, blocks read from storage and voluntary context
// switches come from getrusage at the region's ends, less what the harness's paused reads did.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
// Without valgrind's headers the region is still counted, without instructions.
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(name)
#define CALLGRIND_TOGGLE_COLLECT
#endif

#include "OperationCounter.h"

enum { kAllocations, kSyncs, kWriteCalls, kBytesWritten, kCounters };
static uint64_t counters[kCounters];
static uint64_t atBegin[kCounters];
// The process's figures from getrusage: minor and major faults, 512-byte blocks read, voluntary switches.
enum { kUsages = 4 };
static uint64_t usageAtBegin[kUsages];
static uint64_t usageAtPause[kUsages];
static uint64_t usagePaused[kUsages];
// Whether this thread paused the region. Initial-exec: a preloaded library's thread-local variable is in the static
// block, so reading it from malloc never allocates.
static __thread __attribute__((tls_model("initial-exec"))) int paused;

static inline void add(int counter, uint64_t amount) {
    if (!paused) __atomic_fetch_add(&counters[counter], amount, __ATOMIC_RELAXED);
}

static void usage(uint64_t figures[kUsages]) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    figures[0] = (uint64_t)usage.ru_minflt;
    figures[1] = (uint64_t)usage.ru_majflt;
    figures[2] = (uint64_t)usage.ru_inblock;
    figures[3] = (uint64_t)usage.ru_nvcsw;
}

void pb_counting_begin(void) {
    for (int index = 0; index < kCounters; index++)
        atBegin[index] = __atomic_load_n(&counters[index], __ATOMIC_RELAXED);
    for (int index = 0; index < kUsages; index++) usagePaused[index] = 0;
    usage(usageAtBegin);
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_ZERO_STATS;
}

// Callgrind's collection state is the calling thread's, as the flag is: other threads go on counting.
void pb_counting_pause(void) {
    if (paused) return;
    paused = 1;
    CALLGRIND_TOGGLE_COLLECT;
    usage(usageAtPause);
}

void pb_counting_resume(void) {
    if (!paused) return;
    uint64_t now[kUsages];
    usage(now);
    for (int index = 0; index < kUsages; index++) usagePaused[index] += now[index] - usageAtPause[index];
    CALLGRIND_TOGGLE_COLLECT;
    paused = 0;
}

void pb_counting_end(uint64_t counts[8]) {
    uint64_t now[kUsages];
    usage(now);
    CALLGRIND_DUMP_STATS_AT("counted region");
    CALLGRIND_STOP_INSTRUMENTATION;
    for (int index = 0; index < kCounters; index++)
        counts[index] = __atomic_load_n(&counters[index], __ATOMIC_RELAXED) - atBegin[index];
    for (int index = 0; index < kUsages; index++)
        counts[kCounters + index] = now[index] - usageAtBegin[index] - usagePaused[index];
}

// glibc's own entry points: no dlsym, which itself allocates, on the way to them.
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

void *malloc(size_t size) {
    add(kAllocations, 1);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    add(kAllocations, 1);
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    add(kAllocations, 1);
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    add(kAllocations, 1);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    add(kAllocations, 1);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    add(kAllocations, 1);
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

#define NEXT(name) static __typeof__(name) *real_##name; if (!real_##name) real_##name = dlsym(RTLD_NEXT, #name)

int fsync(int descriptor) {
    NEXT(fsync);
    add(kSyncs, 1);
    return real_fsync(descriptor);
}

int fdatasync(int descriptor) {
    NEXT(fdatasync);
    add(kSyncs, 1);
    return real_fdatasync(descriptor);
}

int msync(void *address, size_t length, int flags) {
    NEXT(msync);
    if (flags & MS_SYNC) add(kSyncs, 1);
    return real_msync(address, length, flags);
}

// A write of `result` bytes to `descriptor`, counted if it is a regular file's.
static ssize_t counted(int descriptor, ssize_t result) {
    struct stat status;
    if (fstat(descriptor, &status) == 0 && S_ISREG(status.st_mode)) {
        add(kWriteCalls, 1);
        if (result > 0) add(kBytesWritten, (uint64_t)result);
    }
    return result;
}

ssize_t write(int descriptor, const void *buffer, size_t count) {
    NEXT(write);
    return counted(descriptor, real_write(descriptor, buffer, count));
}

ssize_t pwrite(int descriptor, const void *buffer, size_t count, off_t offset) {
    NEXT(pwrite);
    return counted(descriptor, real_pwrite(descriptor, buffer, count, offset));
}

ssize_t pwrite64(int descriptor, const void *buffer, size_t count, off64_t offset) {
    NEXT(pwrite64);
    return counted(descriptor, real_pwrite64(descriptor, buffer, count, offset));
}

ssize_t writev(int descriptor, const struct iovec *vector, int count) {
    NEXT(writev);
    return counted(descriptor, real_writev(descriptor, vector, count));
}

ssize_t pwritev(int descriptor, const struct iovec *vector, int count, off_t offset) {
    NEXT(pwritev);
    return counted(descriptor, real_pwritev(descriptor, vector, count, offset));
}

ssize_t pwritev64(int descriptor, const struct iovec *vector, int count, off64_t offset) {
    NEXT(pwritev64);
    return counted(descriptor, real_pwritev64(descriptor, vector, count, offset));
}
