// libWriteRecorder: records, for `persistbench crash --power-loss`, every change a process makes to the files
// under one directory, in call order, so that the crash states a power cut may leave can be rebuilt from it; and
// fails a chosen write or flush, for the fault checks.
//
// Environment:
//   PB_RECORD_DIR        the directory whose files are recorded (an absolute path)
//   PB_RECORD_LOG        the log file (outside that directory)
//   PB_RECORD_MARKER_FD  a descriptor whose writes are logged as markers (the writer's commit reports)
//   PB_FAULT             "write:N:ERRNO" or "flush:N:ERRNO": the Nth recorded write (or flush) and every later
//                        one fail with ERRNO
//
// Log records, little-endian: kind u32, path length u32, second path length u32, pad u32, inode u64,
// offset i64, data length i64, then the path, the second path and the data. Kinds: 1 write (offset, data),
// 2 flush of a file, 3 truncate (offset = new size), 4 create, 5 rename (path to second path), 6 unlink,
// 7 flush of a directory, 8 marker (data), 9 fault (offset = 1 write, 2 flush; length = errno), 10 flush by a
// write through an O_SYNC or O_DSYNC descriptor (not a call a fault can fail), 11 creation of a directory, 12 pages
// written through a shared writable map (offset, data; not a call a fault can fail).
//
// Pages written through a shared writable map (LMDB's MDB_WRITEMAP) reach the file without a write call: at each
// msync of a mapped file under the directory, the pages of the synced range that differ from what the recorder
// last saw of them are recorded as writes (kind 12), then, for MS_SYNC, a flush (kind 2). A page the kernel wrote
// back before the msync is recorded at the msync: the crash states do not include its earlier arrival.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "WriteRecorder.h"

enum { kWrite = 1, kFlush = 2, kTruncate = 3, kCreate = 4, kRename = 5, kUnlink = 6, kDirSync = 7,
       kMarker = 8, kFault = 9, kSynchronousWrite = 10, kMakeDirectory = 11, kMappedWrite = 12 };
enum { kMaxDescriptors = 65536 };

struct Header {
    uint32_t kind, pathLength, secondPathLength, pad;
    uint64_t inode;
    int64_t offset, length;
};

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off64_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev64)(int, const struct iovec *, int, off64_t);
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_close)(int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_ftruncate)(int, off_t);
static int (*real_ftruncate64)(int, off64_t);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_unlink)(const char *);
static int (*real_unlinkat)(int, const char *, int);
static int (*real_mkdir)(const char *, mode_t);
static int (*real_mkdirat)(int, const char *, mode_t);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char recordDirectory[PATH_MAX];
static size_t recordDirectoryLength;
static int logDescriptor = -1;
static int markerDescriptor = -1;
static char *paths[kMaxDescriptors];
static uint64_t inodes[kMaxDescriptors];
static unsigned char synchronous[kMaxDescriptors], directories[kMaxDescriptors];
static int faultKind;  // 1 write, 2 flush
static long faultAt, faultErrno, writesSeen, flushesSeen;

#define RESOLVE(name) real_##name = dlsym(RTLD_NEXT, #name)

__attribute__((constructor)) static void initialize(void) {
    RESOLVE(write); RESOLVE(pwrite); RESOLVE(pwrite64); RESOLVE(writev); RESOLVE(pwritev); RESOLVE(pwritev64);
    RESOLVE(open); RESOLVE(open64); RESOLVE(openat); RESOLVE(openat64); RESOLVE(close); RESOLVE(fsync);
    RESOLVE(fdatasync); RESOLVE(ftruncate); RESOLVE(ftruncate64); RESOLVE(rename); RESOLVE(renameat);
    RESOLVE(unlink); RESOLVE(unlinkat); RESOLVE(mkdir); RESOLVE(mkdirat);
    const char *directory = getenv("PB_RECORD_DIR");
    const char *log = getenv("PB_RECORD_LOG");
    if (directory && log && realpath(directory, recordDirectory)) {
        recordDirectoryLength = strlen(recordDirectory);
        logDescriptor = real_open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    }
    const char *marker = getenv("PB_RECORD_MARKER_FD");
    if (marker) markerDescriptor = atoi(marker);
    const char *fault = getenv("PB_FAULT");
    if (fault) {
        char what[16] = {0};
        if (sscanf(fault, "%15[a-z]:%ld:%ld", what, &faultAt, &faultErrno) == 3) {
            faultKind = strcmp(what, "write") == 0 ? 1 : strcmp(what, "flush") == 0 ? 2 : 0;
        }
    }
}

static int recording(void) { return logDescriptor >= 0; }

static void emit(const void *bytes, size_t count) {
    const char *next = bytes;
    while (count > 0) {
        ssize_t written = real_write(logDescriptor, next, count);
        if (written <= 0) {
            if (written < 0 && errno == EINTR) continue;
            abort();  // A record lost would make every crash state built from the log wrong.
        }
        next += written;
        count -= (size_t)written;
    }
}

// Writes one record; `data` is `pieces` buffers totalling `length` bytes. Called with the lock held.
static void record(uint32_t kind, const char *path, const char *secondPath, uint64_t inode, int64_t offset,
                   const struct iovec *pieces, int pieceCount, int64_t length) {
    struct Header header = {kind, path ? (uint32_t)strlen(path) : 0, secondPath ? (uint32_t)strlen(secondPath) : 0,
                            0, inode, offset, length};
    emit(&header, sizeof header);
    if (path) emit(path, header.pathLength);
    if (secondPath) emit(secondPath, header.secondPathLength);
    int64_t left = length;
    for (int index = 0; index < pieceCount && left > 0; index++) {
        size_t count = pieces[index].iov_len < (size_t)left ? pieces[index].iov_len : (size_t)left;
        emit(pieces[index].iov_base, count);
        left -= (int64_t)count;
    }
}

static int tracked(int descriptor) {
    return recording() && descriptor >= 0 && descriptor < kMaxDescriptors && paths[descriptor] != NULL;
}

static int underDirectory(const char *path) {
    return strncmp(path, recordDirectory, recordDirectoryLength) == 0 &&
           (path[recordDirectoryLength] == '/' || path[recordDirectoryLength] == 0);
}

// The absolute path of `path` relative to `directory` (AT_FDCWD or a descriptor), without resolving the last
// component (it may not exist yet).
static void absolutePath(int directory, const char *path, char *out) {
    if (path[0] == '/') {
        snprintf(out, PATH_MAX, "%s", path);
        return;
    }
    char base[PATH_MAX] = {0};
    if (directory == AT_FDCWD) {
        if (!getcwd(base, sizeof base)) base[0] = 0;
    } else {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", directory);
        ssize_t count = readlink(link, base, sizeof base - 1);
        base[count > 0 ? count : 0] = 0;
    }
    snprintf(out, PATH_MAX, "%s/%s", base, path);
}

// Whether the recorded write or flush about to happen is to fail; records the fault. Lock held.
static int injectFault(int kind) {
    long seen = kind == 1 ? ++writesSeen : ++flushesSeen;
    if (faultKind != kind || seen < faultAt) return 0;
    struct iovec none = {0};
    record(kFault, NULL, NULL, 0, kind, &none, 0, faultErrno);
    errno = (int)faultErrno;
    return 1;
}

static void opened(int descriptor, int flags, int existed) {
    if (!recording() || descriptor < 0 || descriptor >= kMaxDescriptors) return;
    char link[64], resolved[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", descriptor);
    ssize_t count = readlink(link, resolved, sizeof resolved - 1);
    if (count <= 0) return;
    resolved[count] = 0;
    if (!underDirectory(resolved)) return;
    struct stat status;
    if (fstat(descriptor, &status) != 0) return;
    pthread_mutex_lock(&lock);
    free(paths[descriptor]);
    paths[descriptor] = strdup(resolved);
    inodes[descriptor] = status.st_ino;
    directories[descriptor] = S_ISDIR(status.st_mode);
    synchronous[descriptor] = (flags & (O_SYNC | O_DSYNC)) != 0;
    struct iovec none = {0};
    if (!existed) record(kCreate, resolved, NULL, status.st_ino, 0, &none, 0, 0);
    else if ((flags & O_TRUNC) && !S_ISDIR(status.st_mode)) record(kTruncate, resolved, NULL, status.st_ino, 0, &none, 0, 0);
    pthread_mutex_unlock(&lock);
}

static int exists(int directory, const char *path) {
    struct stat status;
    return fstatat(directory, path, &status, 0) == 0;
}

#define OPEN_BODY(realCall, directory)                                  \
    mode_t mode = 0;                                                    \
    if (flags & (O_CREAT | O_TMPFILE)) {                                \
        va_list arguments;                                              \
        va_start(arguments, flags);                                     \
        mode = va_arg(arguments, mode_t);                               \
        va_end(arguments);                                              \
    }                                                                   \
    int existed = recording() ? exists(directory, path) : 1;            \
    int descriptor = realCall;                                          \
    if (descriptor >= 0) opened(descriptor, flags, existed); \
    return descriptor;

int open(const char *path, int flags, ...) { OPEN_BODY(real_open(path, flags, mode), AT_FDCWD) }
int open64(const char *path, int flags, ...) { OPEN_BODY(real_open64(path, flags, mode), AT_FDCWD) }
int openat(int directory, const char *path, int flags, ...) {
    OPEN_BODY(real_openat(directory, path, flags, mode), directory)
}
int openat64(int directory, const char *path, int flags, ...) {
    OPEN_BODY(real_openat64(directory, path, flags, mode), directory)
}

int close(int descriptor) {
    if (tracked(descriptor)) {
        pthread_mutex_lock(&lock);
        free(paths[descriptor]);
        paths[descriptor] = NULL;
        pthread_mutex_unlock(&lock);
    }
    return real_close(descriptor);
}

// One interposed write call, performed by `perform`.
struct WriteCall {
    enum { callWrite, callPwrite, callPwrite64, callWritev, callPwritev, callPwritev64 } function;
    int descriptor;
    const struct iovec *pieces;
    int pieceCount;
    off64_t offset;  // -1: the descriptor's position
};

static ssize_t perform(const struct WriteCall *call) {
    const struct iovec *first = call->pieces;
    switch (call->function) {
    case callWrite: return real_write(call->descriptor, first->iov_base, first->iov_len);
    case callPwrite: return real_pwrite(call->descriptor, first->iov_base, first->iov_len, (off_t)call->offset);
    case callPwrite64: return real_pwrite64(call->descriptor, first->iov_base, first->iov_len, call->offset);
    case callWritev: return real_writev(call->descriptor, call->pieces, call->pieceCount);
    case callPwritev: return real_pwritev(call->descriptor, call->pieces, call->pieceCount, (off_t)call->offset);
    case callPwritev64: return real_pwritev64(call->descriptor, call->pieces, call->pieceCount, call->offset);
    }
    return -1;
}

static ssize_t recordedWrite(struct WriteCall call) {
    int descriptor = call.descriptor;
    if (recording() && descriptor == markerDescriptor) {
        ssize_t written = perform(&call);
        if (written > 0) {
            pthread_mutex_lock(&lock);
            record(kMarker, NULL, NULL, 0, 0, call.pieces, call.pieceCount, written);
            pthread_mutex_unlock(&lock);
        }
        return written;
    }
    if (!tracked(descriptor)) return perform(&call);
    pthread_mutex_lock(&lock);
    if (injectFault(1)) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    off64_t offset = call.offset;
    if (offset < 0) {
        if (fcntl(descriptor, F_GETFL) & O_APPEND) {
            struct stat status;
            offset = fstat(descriptor, &status) == 0 ? status.st_size : 0;
        } else {
            offset = lseek64(descriptor, 0, SEEK_CUR);
        }
    }
    ssize_t written = perform(&call);
    if (written > 0) {
        record(kWrite, paths[descriptor], NULL, inodes[descriptor], offset, call.pieces, call.pieceCount, written);
        struct iovec none = {0};
        if (synchronous[descriptor]) {
            record(kSynchronousWrite, paths[descriptor], NULL, inodes[descriptor], 0, &none, 0, 0);
        }
    }
    pthread_mutex_unlock(&lock);
    return written;
}

ssize_t write(int descriptor, const void *bytes, size_t count) {
    struct iovec piece = {(void *)bytes, count};
    return recordedWrite((struct WriteCall){callWrite, descriptor, &piece, 1, -1});
}
ssize_t pwrite(int descriptor, const void *bytes, size_t count, off_t offset) {
    struct iovec piece = {(void *)bytes, count};
    return recordedWrite((struct WriteCall){callPwrite, descriptor, &piece, 1, offset});
}
ssize_t pwrite64(int descriptor, const void *bytes, size_t count, off64_t offset) {
    struct iovec piece = {(void *)bytes, count};
    return recordedWrite((struct WriteCall){callPwrite64, descriptor, &piece, 1, offset});
}
ssize_t writev(int descriptor, const struct iovec *pieces, int count) {
    return recordedWrite((struct WriteCall){callWritev, descriptor, pieces, count, -1});
}
ssize_t pwritev(int descriptor, const struct iovec *pieces, int count, off_t offset) {
    return recordedWrite((struct WriteCall){callPwritev, descriptor, pieces, count, offset});
}
ssize_t pwritev64(int descriptor, const struct iovec *pieces, int count, off64_t offset) {
    return recordedWrite((struct WriteCall){callPwritev64, descriptor, pieces, count, offset});
}

static int recordedFlush(int descriptor, int (*perform)(int)) {
    if (!tracked(descriptor)) return perform(descriptor);
    pthread_mutex_lock(&lock);
    if (injectFault(2)) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    int result = perform(descriptor);
    if (result == 0) {
        struct iovec none = {0};
        record(directories[descriptor] ? kDirSync : kFlush, paths[descriptor], NULL, inodes[descriptor], 0, &none,
               0, 0);
    }
    pthread_mutex_unlock(&lock);
    return result;
}

int fsync(int descriptor) { return recordedFlush(descriptor, real_fsync); }
int fdatasync(int descriptor) { return recordedFlush(descriptor, real_fdatasync); }

static void truncated(int descriptor, off64_t length) {
    pthread_mutex_lock(&lock);
    struct iovec none = {0};
    record(kTruncate, paths[descriptor], NULL, inodes[descriptor], length, &none, 0, 0);
    pthread_mutex_unlock(&lock);
}

int ftruncate(int descriptor, off_t length) {
    int result = real_ftruncate(descriptor, length);
    if (result == 0 && tracked(descriptor)) truncated(descriptor, length);
    return result;
}
int ftruncate64(int descriptor, off64_t length) {
    int result = real_ftruncate64(descriptor, length);
    if (result == 0 && tracked(descriptor)) truncated(descriptor, length);
    return result;
}

static int recordedRename(int fromDirectory, const char *from, int toDirectory, const char *to) {
    char source[PATH_MAX], target[PATH_MAX];
    if (recording()) {
        absolutePath(fromDirectory, from, source);
        absolutePath(toDirectory, to, target);
    }
    int result = real_renameat(fromDirectory, from, toDirectory, to);
    if (result == 0 && recording() && (underDirectory(source) || underDirectory(target))) {
        pthread_mutex_lock(&lock);
        struct iovec none = {0};
        record(kRename, source, target, 0, 0, &none, 0, 0);
        for (int descriptor = 0; descriptor < kMaxDescriptors; descriptor++) {
            if (paths[descriptor] && strcmp(paths[descriptor], source) == 0) {
                free(paths[descriptor]);
                paths[descriptor] = strdup(target);
            }
        }
        pthread_mutex_unlock(&lock);
    }
    return result;
}

int rename(const char *from, const char *to) { return recordedRename(AT_FDCWD, from, AT_FDCWD, to); }
int renameat(int fromDirectory, const char *from, int toDirectory, const char *to) {
    return recordedRename(fromDirectory, from, toDirectory, to);
}

static int recordedUnlink(int directory, const char *path, int flags) {
    char absolute[PATH_MAX];
    if (recording()) absolutePath(directory, path, absolute);
    int result = real_unlinkat(directory, path, flags);
    if (result == 0 && recording() && underDirectory(absolute) && !(flags & AT_REMOVEDIR)) {
        pthread_mutex_lock(&lock);
        struct iovec none = {0};
        record(kUnlink, absolute, NULL, 0, 0, &none, 0, 0);
        pthread_mutex_unlock(&lock);
    }
    return result;
}

int unlink(const char *path) { return recordedUnlink(AT_FDCWD, path, 0); }
int unlinkat(int directory, const char *path, int flags) { return recordedUnlink(directory, path, flags); }

static int recordedMakeDirectory(int directory, const char *path, mode_t mode) {
    char absolute[PATH_MAX];
    if (recording()) absolutePath(directory, path, absolute);
    int result = real_mkdirat(directory, path, mode);
    if (result == 0 && recording() && underDirectory(absolute)) {
        struct stat status;
        uint64_t inode = stat(absolute, &status) == 0 ? status.st_ino : 0;
        pthread_mutex_lock(&lock);
        struct iovec none = {0};
        record(kMakeDirectory, absolute, NULL, inode, 0, &none, 0, 0);
        pthread_mutex_unlock(&lock);
    }
    return result;
}

int mkdir(const char *path, mode_t mode) { return recordedMakeDirectory(AT_FDCWD, path, mode); }
int mkdirat(int directory, const char *path, mode_t mode) { return recordedMakeDirectory(directory, path, mode); }

// The kernel's mmap, munmap and msync, called directly: the loader and malloc map memory before this library's
// constructor could resolve the next definitions.
static void *real_mmap(void *address, size_t length, int protection, int flags, int descriptor, off64_t offset) {
    return (void *)syscall(SYS_mmap, address, length, protection, flags, descriptor, offset);
}
static int real_munmap(void *address, size_t length) { return (int)syscall(SYS_munmap, address, length); }
static int real_msync(void *address, size_t length, int flags) {
    return (int)syscall(SYS_msync, address, length, flags);
}

// Shared writable maps of recorded files, with a copy of what the recorder last saw of each page of them.
enum { kMaxMaps = 64, kPage = 4096 };
struct Map {
    char *address;
    size_t length;
    off64_t offset;
    char *path;
    uint64_t inode;
    char *seen;
};
static struct Map maps[kMaxMaps];

static void *mapped(void *address, size_t length, int protection, int flags, int descriptor, off64_t offset) {
    if (address == MAP_FAILED || !(protection & PROT_WRITE) || !(flags & MAP_SHARED) || !tracked(descriptor)) {
        return address;
    }
    pthread_mutex_lock(&lock);
    for (int index = 0; index < kMaxMaps; index++) {
        if (maps[index].address) continue;
        // What the file holds now: the base the first msync's pages are compared with. Past the end, zeros.
        char *seen = calloc(1, length);
        if (!seen) abort();
        size_t done = 0;
        while (done < length) {
            ssize_t count = pread64(descriptor, seen + done, length - done, offset + (off64_t)done);
            if (count <= 0) break;
            done += (size_t)count;
        }
        maps[index] = (struct Map){address, length, offset, strdup(paths[descriptor]), inodes[descriptor], seen};
        break;
    }
    pthread_mutex_unlock(&lock);
    return address;
}

void *mmap(void *address, size_t length, int protection, int flags, int descriptor, off_t offset) {
    return mapped(real_mmap(address, length, protection, flags, descriptor, offset), length, protection, flags,
                  descriptor, offset);
}
void *mmap64(void *address, size_t length, int protection, int flags, int descriptor, off64_t offset) {
    return mapped(real_mmap(address, length, protection, flags, descriptor, offset), length, protection, flags,
                  descriptor, offset);
}

int munmap(void *address, size_t length) {
    if (recording()) {
        pthread_mutex_lock(&lock);
        for (int index = 0; index < kMaxMaps; index++) {
            if (maps[index].address != address) continue;
            free(maps[index].path);
            free(maps[index].seen);
            maps[index] = (struct Map){0};
        }
        pthread_mutex_unlock(&lock);
    }
    return real_munmap(address, length);
}

int msync(void *address, size_t length, int flags) {
    if (!recording()) return real_msync(address, length, flags);
    char *start = address;
    pthread_mutex_lock(&lock);
    struct Map *map = NULL;
    for (int index = 0; index < kMaxMaps && !map; index++) {
        struct Map *candidate = &maps[index];
        if (candidate->address && start >= candidate->address && start < candidate->address + candidate->length) {
            map = candidate;
        }
    }
    if (!map) {
        pthread_mutex_unlock(&lock);
        return real_msync(address, length, flags);
    }
    if (injectFault(2)) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    int result = real_msync(address, length, flags);
    if (result == 0) {
        size_t end = (size_t)(start - map->address) + length;
        if (end > map->length) end = map->length;
        // Runs of changed pages, each recorded as one write, in file order.
        size_t page = (size_t)(start - map->address) / kPage * kPage;
        while (page < end) {
            size_t size = end - page < kPage ? end - page : kPage;
            if (memcmp(map->address + page, map->seen + page, size) == 0) {
                page += size;
                continue;
            }
            size_t runEnd = page + size;
            while (runEnd < end) {
                size_t next = end - runEnd < kPage ? end - runEnd : kPage;
                if (memcmp(map->address + runEnd, map->seen + runEnd, next) == 0) break;
                runEnd += next;
            }
            struct iovec piece = {map->address + page, runEnd - page};
            record(kMappedWrite, map->path, NULL, map->inode, map->offset + (off64_t)page, &piece, 1,
                   (int64_t)(runEnd - page));
            memcpy(map->seen + page, map->address + page, runEnd - page);
            page = runEnd;
        }
        if (flags & MS_SYNC) {
            struct iovec none = {0};
            record(kFlush, map->path, NULL, map->inode, 0, &none, 0, 0);
        }
    }
    pthread_mutex_unlock(&lock);
    return result;
}
