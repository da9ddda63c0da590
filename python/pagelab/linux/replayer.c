/* The guest's replayer: touches the pages of a trace in order inside one anonymous mapping.
 *
 * Usage: replayer TOUCHES PAGES CGROUP MEMORY_MAX [probe]
 *   TOUCHES  the touch list, mapped read-only from the initramfs (its pages belong to the root
 *            cgroup, so they are not charged to the one under test): a header
 *            "PLTOUCH1" u32 pages u32 reserved u64 touches, then one little-endian u32 per run
 *            of the trace, the dense page number with bit 31 set when the run writes.
 *   PAGES    the mapping's size in pages (the trace's distinct pages).
 *   CGROUP   the cgroup directory whose memory.current and memory.stat are read before the first
 *            touch and after the last, so that the host can measure what the replayer itself
 *            holds besides the trace's pages.
 *   MEMORY_MAX  written to the cgroup's memory.max just before the first touch: the replayer
 *            starts under no limit (its start charges about 250 KiB, most of it never touched
 *            again), and the kernel reclaims down to the limit as the replay begins.
 * It prints "key value" lines: wall time of the replay in ns; the process's own major and minor
 * faults (getrusage) before and after the loop, so that faults of its start and of this report
 * are not counted; the cgroup's charge and anonymous memory before and after, and its own
 * anonymous memory before (smaps_rollup); and how many of
 * the mapping's anonymous pages are resident at the end (/proc/self/smaps: the zero page, mapped
 * by reads of pages never written, is not counted there), so that the host can tell the trace's
 * pages from everything else charged to the cgroup.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long long stat_key(const char *cg, const char *key) {
    char path[512], line[256];
    snprintf(path, sizeof path, "%s/memory.stat", cg);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = strlen(key);
    long long v = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ' ') { v = atoll(line + n + 1); break; }
    fclose(f);
    return v;
}

static long long current(const char *cg) {
    char path[512];
    snprintf(path, sizeof path, "%s/memory.current", cg);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long long v = -1;
    if (fscanf(f, "%lld", &v) != 1) v = -1;
    fclose(f);
    return v;
}

static long long resident_kib(unsigned char *base) {
    char line[256], want[32];
    snprintf(want, sizeof want, "%lx-", (unsigned long)base);
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    long long kib = -1;
    int in = 0;
    while (fgets(line, sizeof line, f)) {
        if (strchr(line, '-') && strncmp(line, want, strlen(want)) == 0) in = 1;
        else if (in && strncmp(line, "Anonymous:", 10) == 0) { kib = atoll(line + 10); break; }
    }
    fclose(f);
    return kib;
}

/* The process's own anonymous memory [KiB] (/proc/self/smaps_rollup "Anonymous:"), exact in
 * every kernel, where memory.stat's anon is the copy its flusher last left (6.12 flushes only
 * past a batch of updates). Read into a buffer touched first, so that reading it charges no
 * anonymous page of its own after the count is taken. */
static long long self_anon_kib(void) {
    static char buf[4096];
    memset(buf, 1, sizeof buf);
    int fd = open("/proc/self/smaps_rollup", O_RDONLY);
    if (fd < 0) return -1;
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0) return -1;
    buf[got] = 0;
    const char *at = strstr(buf, "\nAnonymous:");
    return at ? atoll(at + 11) : -1;
}

static int set_max(const char *cg, const char *bytes) {
    char path[512];
    snprintf(path, sizeof path, "%s/memory.max", cg);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int ok = fputs(bytes, f) >= 0;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* The value of `key` in memory.stat text `buf`, or -1. */
static long long key_in(const char *buf, const char *key) {
    size_t n = strlen(key);
    for (const char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, key, n) == 0 && l[n] == ' ') return atoll(l + n + 1);
    return -1;
}

static void report(const char *cg, const char *when) {
    printf("%s_memory_current %lld\n", when, current(cg));
    printf("%s_anon %lld\n", when, stat_key(cg, "anon"));
    printf("%s_pagetables %lld\n", when, stat_key(cg, "pagetables"));
    printf("%s_kernel %lld\n", when, stat_key(cg, "kernel"));
    printf("%s_file %lld\n", when, stat_key(cg, "file"));
}

#define PROBE_PAGES 4096

static void probe_tlb(void) {
    static const unsigned sizes[] = {16, 32, 48, 64, 96, 128, 160, 192, 224, 256, 320, 384,
                                     448, 512, 640, 768, 1024, 1536, 2048, 3072, 4096};
    volatile unsigned char *p = mmap(NULL, (size_t)PROBE_PAGES * 4096, PROT_READ,
                                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) { perror("probe mmap"); return; }
    unsigned sink = 0;
    for (unsigned i = 0; i < PROBE_PAGES; i++) sink += p[(size_t)i * 4096];
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned n = sizes[k], rounds = 400000 / n;
        struct timespec a, b;
        for (unsigned i = 0; i < n; i++) sink += p[(size_t)i * 4096]; /* warm */
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (unsigned r = 0; r < rounds; r++)
            for (unsigned i = 0; i < n; i++) sink += p[(size_t)i * 4096];
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
        printf("tlb_probe %u %.3f\n", n, ns / ((double)rounds * n));
    }
    printf("probe_sink %u\n", sink);
}

int main(int argc, char **argv) {
    int probe = argc == 6 && strcmp(argv[5], "probe") == 0;
    if (argc != 5 && !probe) { fprintf(stderr, "usage: replayer TOUCHES PAGES CGROUP MEMORY_MAX\n"); return 2; }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 24) { perror(argv[1]); return 2; }
    const unsigned char *file = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (file == MAP_FAILED || memcmp(file, "PLTOUCH1", 8) != 0) {
        fprintf(stderr, "%s: not a touch list\n", argv[1]);
        return 2;
    }
    uint64_t touches;
    memcpy(&touches, file + 16, 8);
    if (24 + touches * 4 > (uint64_t)st.st_size) { fprintf(stderr, "touch list truncated\n"); return 2; }
    const uint32_t *t = (const uint32_t *)(file + 24);
    size_t pages = strtoull(argv[2], NULL, 10);
    unsigned char *base = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) { perror("mmap"); return 2; }
    madvise(base, pages * 4096, MADV_NOHUGEPAGE);
    /* memory.stat opened and read once before the loop, read again at its end with pread:
     * no file is opened there, so the kernel memory it shows is the loop's, before the report's
     * own files charge their kernel objects (struct file and seq_file buffers are accounted).
     * Read before the "before" report, so that the anonymous memory it shows holds the buffer's
     * pages too: everything the replayer charges before its first touch. */
    static char stat_buf[16384];
    char stat_path[512];
    snprintf(stat_path, sizeof stat_path, "%s/memory.stat", argv[3]);
    int stat_fd = open(stat_path, O_RDONLY);
    if (stat_fd >= 0 && pread(stat_fd, stat_buf, sizeof stat_buf - 1, 0) < 0) stat_fd = -1;
    report(argv[3], "before");
    printf("before_self_anon_kib %lld\n", self_anon_kib());
    fflush(stdout);
    if (set_max(argv[3], argv[4]) != 0) { perror("memory.max"); return 2; }
    struct rusage r0, r1;
    struct timespec a, b;
    getrusage(RUSAGE_SELF, &r0);
    clock_gettime(CLOCK_MONOTONIC, &a);
    unsigned sink = 0; /* a register, so that reads do not touch the stack's page */
    for (uint64_t i = 0; i < touches; i++) {
        uint32_t v = t[i];
        volatile unsigned char *p = base + (size_t)(v & 0x7fffffffu) * 4096;
        if (v >> 31) *p = (unsigned char)(*p + 1);
        else sink += *p;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    getrusage(RUSAGE_SELF, &r1);
    long long loop_kernel = -1, loop_pagetables = -1;
    if (stat_fd >= 0) {
        ssize_t got = pread(stat_fd, stat_buf, sizeof stat_buf - 1, 0);
        if (got > 0) {
            stat_buf[got] = 0;
            loop_kernel = key_in(stat_buf, "kernel");
            loop_pagetables = key_in(stat_buf, "pagetables");
        }
    }
    /* The charge and the mapping's resident pages are read as one consistent pair: opening a
     * file charges its kernel objects, and at memory.max that charge reclaims a batch of the
     * trace's pages, so a pair with a reclaim between its reads (the charge moved) is read again. */
    long long in_core = -1, settled = -1;
    for (int tries = 0; tries < 8; tries++) {
        long long c0 = current(argv[3]);
        in_core = resident_kib(base) / 4;
        settled = current(argv[3]);
        if (c0 == settled) break;
    }
    /* Each time another task ran and the replayer came back, `context_switch` re-armed its mm
     * for MGLRU's page-table walk (`lru_gen_use_mm`). */
    printf("loop_nvcsw %ld\nloop_nivcsw %ld\n", r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw);
    printf("loop_majflt %ld\nloop_minflt %ld\n", r1.ru_majflt - r0.ru_majflt,
           r1.ru_minflt - r0.ru_minflt);
    printf("region_resident %lld\n", in_core);
    printf("replay_ns %lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
    printf("touches %llu\n", (unsigned long long)touches);
    printf("after_settled_current %lld\n", settled);
    printf("loop_end_kernel %lld\nloop_end_pagetables %lld\n", loop_kernel, loop_pagetables);
    report(argv[3], "after");
    printf("sink %u\n", sink);
    if (probe) probe_tlb();
    return 0;
}
