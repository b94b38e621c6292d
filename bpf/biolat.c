// SPDX-License-Identifier: GPL-2.0
/* pinchpoint-biolat: loads biolat.bpf.c, records for a while and prints what the kernel
 * aggregated as JSON, one object per line: at the end, or every --interval seconds (counts
 * cumulative since attach). Run by pinchpoint with an argument list and a timeout.
 *
 *   pinchpoint-biolat --seconds N [--interval S] [--device MAJ:MIN]... [--stats]
 *                     [--budget-bytes B] [--layout auto|percpu|shared]
 *
 * --seconds 0 records until SIGINT or SIGTERM; SIGUSR1 prints a line at once.
 * The maps stay within --budget-bytes (default 64 MiB) whatever the CPU count: per-CPU
 * values where the budget holds them for every disk, else one shared value per entry with
 * atomic adds (--layout forces one); each line says which and what the maps take.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "biolat.h"
#include "biolat.skel.h"
#include "map_memory.h"

#define MAX_DEVICES 4096
#define MAX_DISKS 65536
#define MAX_CPUS 4096
#define DEFAULT_BUDGET_BYTES (64ull << 20)
/* The operations a disk's entries are sized for: read, write, flush, discard. */
#define OPS_PER_DISK 4
#define MAX_ENTRIES (1u << 20)

/* How the histograms are kept, and what they may take (docs/ebpf.md, memory). */
struct layout {
	int shared;		/* one value per entry for every CPU (atomic adds), else per CPU */
	__u32 capacity;		/* entries of `stats` the budget holds */
	int disks;		/* disks whose read and write entries are made before attaching */
	__u64 budget;		/* bytes */
	__u64 needed[2];	/* bytes each layout (per-CPU, shared) needs for OPS_PER_DISK per disk */
	__u64 estimate;		/* bytes of every map with the disks' read and write entries made */
};

static volatile sig_atomic_t stopping, asked;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

/* SIGUSR1: print the counts now (the service asks at each of its ticks). */
static void on_ask(int sig)
{
	(void)sig;
	asked = 1;
}

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, args);
	return 0;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: pinchpoint-biolat --seconds N [--interval S] "
			"[--device MAJ:MIN]... [--stats] [--budget-bytes B] "
			"[--layout auto|percpu|shared]\n");
	exit(2);
}

static int ncpus;
static struct layout layout;

static __u64 sum_percpu(const __u64 *values)
{
	__u64 s = 0;

	for (int i = 0; i < ncpus; i++)
		s += values[i];
	return s;
}

static void print_programs(struct biolat_bpf *skel)
{
	struct bpf_program *progs[] = { skel->progs.on_insert, skel->progs.on_issue,
					skel->progs.on_complete, skel->progs.on_requeue };
	printf("\"programs\":[");
	for (int i = 0; i < 4; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &len))
			continue;
		printf("%s{\"name\":\"%s\",\"run_cnt\":%llu,\"run_time_ns\":%llu,"
		       "\"recursion_misses\":%llu}",
		       i ? "," : "", bpf_program__name(progs[i]), (unsigned long long)info.run_cnt,
		       (unsigned long long)info.run_time_ns,
		       (unsigned long long)info.recursion_misses);
	}
	printf("]");
}

/* A start stamp this old is an I/O whose completion the programs never saw (docs/ebpf.md,
 * unseen completions), not one still in flight. */
#define UNSEEN_AFTER_NS (10ull * 1000000000ull)

/* Start stamps in `starts` older than UNSEEN_AFTER_NS: I/Os issued in the window whose
 * completion the programs did not see (the same rule at every line, so an I/O in flight
 * when the window ends is never counted as lost). */
static __u64 unseen_completions(struct biolat_bpf *skel)
{
	int fd = bpf_map__fd(skel->maps.starts);
	__u64 key, next, *prev = NULL, n = 0, now = now_ns();
	struct { __u64 insert, issue; } s;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &s) || (!s.issue && !s.insert))
			continue; /* gone, or cleared by a completion whose delete failed */
		if (now - (s.issue ? s.issue : s.insert) > UNSEEN_AFTER_NS)
			n++;
	}
	return n;
}

static void print_drops(struct biolat_bpf *skel)
{
	static const char *names[DROP_COUNT] = { "start_map_full", "histogram_map_full",
						 "no_disk", "no_start", "no_issue", "no_completion" };
	__u64 values[MAX_CPUS];
	int fd = bpf_map__fd(skel->maps.drops);

	printf("\"drops\":{");
	for (__u32 k = 0; k < DROP_COUNT; k++) {
		__u64 n;

		memset(values, 0, sizeof(__u64) * ncpus);
		bpf_map_lookup_elem(fd, &k, values);
		n = sum_percpu(values) + (k == DROP_NO_COMPLETION ? unseen_completions(skel) : 0);
		printf("%s\"%s\":%llu", k ? "," : "", names[k], (unsigned long long)n);
	}
	printf("}");
}

/* The raw log-linear index (what parse/biolat.py reads) of dense latency bucket i. */
static unsigned int raw_latency_bucket(unsigned int i)
{
	unsigned int octave;

	if (i == 0)
		return 0;
	if (i == LAT_BUCKETS - 1)
		return MAX_BUCKET;
	octave = FIRST_OCTAVE + (i - 1) / SUB_BUCKETS;
	return (octave - SUB_BITS + 1) * SUB_BUCKETS + (i - 1) % SUB_BUCKETS;
}

/* Add the `nvalues` values of one entry (one per CPU, or the one shared) to `sum`. */
static void add_values(struct stats *sum, const struct stats *values, int nvalues)
{
	for (int c = 0; c < nvalues; c++) {
		for (int k = 0; k < KIND_COUNT; k++) {
			sum->totals[k].count += values[c].totals[k].count;
			sum->totals[k].sum += values[c].totals[k].sum;
			if (values[c].totals[k].max > sum->totals[k].max)
				sum->totals[k].max = values[c].totals[k].max;
		}
		for (int l = 0; l < LAT_COUNT; l++)
			for (int b = 0; b < LAT_BUCKETS; b++)
				sum->lat[l][b] += values[c].lat[l][b];
		for (int b = 0; b < SIZE_BUCKETS; b++)
			sum->size[b] += values[c].size[b];
	}
}

/* Every (device, operation) entry summed over the CPUs, printed as the rows of format 1:
 * "totals" [dev, op, kind, count, sum, max] and "buckets" [dev, op, kind, bucket, count]
 * (non-empty buckets only). The bucket rows are gathered in memory while the totals print,
 * so each entry is read once. */
static int print_stats(struct biolat_bpf *skel)
{
	static const int lat_kind[LAT_COUNT] = { KIND_DEVICE, KIND_QUEUE, KIND_TOTAL };
	int fd = bpf_map__fd(skel->maps.stats), first_total = 1, first_bucket = 1;
	int spill_fd = bpf_map__fd(skel->maps.spill);
	struct stats *values = calloc(ncpus, sizeof(struct stats));
	struct stats *sum = calloc(1, sizeof(struct stats));
	struct stats_key key, next;
	char *rows = NULL;
	size_t rows_len = 0;
	FILE *buckets = open_memstream(&rows, &rows_len);
	void *prev = NULL;

	if (!values || !sum || !buckets) {
		free(values);
		free(sum);
		if (buckets)
			fclose(buckets);
		free(rows);
		return -1;
	}
	printf("\"totals\":[");
	/* the entries of `stats` (with their part in `spill`), then those only in `spill` */
	for (int pass = 0; pass < 2; pass++, prev = NULL) {
	while (!bpf_map_get_next_key(pass ? spill_fd : fd, prev, &next)) {
		key = next;
		prev = &key;
		memset(sum, 0, sizeof(*sum));
		if (pass == 0) {
			if (bpf_map_lookup_elem(fd, &key, values))
				continue;
			add_values(sum, values, layout.shared ? 1 : ncpus);
			if (!bpf_map_lookup_elem(spill_fd, &key, values))
				add_values(sum, values, 1); /* shared in either layout */
		} else {
			if (!bpf_map_lookup_elem(fd, &key, values))
				continue; /* printed with its entry in `stats` */
			if (bpf_map_lookup_elem(spill_fd, &key, values))
				continue;
			add_values(sum, values, 1);
		}
		for (int k = 0; k < KIND_COUNT; k++) {
			if (!sum->totals[k].count)
				continue;
			printf("%s[%u,%u,%d,%llu,%llu,%llu]", first_total ? "" : ",", key.dev, key.op, k,
			       (unsigned long long)sum->totals[k].count,
			       (unsigned long long)sum->totals[k].sum,
			       (unsigned long long)sum->totals[k].max);
			first_total = 0;
		}
		for (int l = 0; l < LAT_COUNT; l++)
			for (int b = 0; b < LAT_BUCKETS; b++) {
				if (!sum->lat[l][b])
					continue;
				fprintf(buckets, "%s[%u,%u,%d,%u,%llu]", first_bucket ? "" : ",", key.dev,
					key.op, lat_kind[l], raw_latency_bucket(b),
					(unsigned long long)sum->lat[l][b]);
				first_bucket = 0;
			}
		for (int b = 0; b < SIZE_BUCKETS; b++) {
			if (!sum->size[b])
				continue;
			fprintf(buckets, "%s[%u,%u,%d,%d,%llu]", first_bucket ? "" : ",", key.dev, key.op,
				KIND_SIZE, b, (unsigned long long)sum->size[b]);
			first_bucket = 0;
		}
	}
	}
	fclose(buckets);
	printf("],\"buckets\":[");
	fwrite(rows, 1, rows_len, stdout);
	printf("]");
	free(rows);
	free(values);
	free(sum);
	return 0;
}

/* The size of /sys/block/NAME in sectors; 0 when it cannot be read. */
static unsigned long long device_sectors(const char *name)
{
	unsigned long long sectors = 0;
	char path[512];
	FILE *file;

	snprintf(path, sizeof(path), "/sys/block/%s/size", name);
	file = fopen(path, "r");
	if (!file)
		return 0;
	if (fscanf(file, "%llu", &sectors) != 1)
		sectors = 0;
	fclose(file);
	return sectors;
}

/* The disks whose entries are made before attaching: those given, else every whole disk in
 * /sys/block that has a medium; how many were put in `disks` (at most MAX_DISKS). */
static int collect_disks(const __u32 *devices, int ndevices, __u32 *disks)
{
	DIR *dir;
	struct dirent *entry;
	int n = 0;

	if (ndevices) {
		memcpy(disks, devices, sizeof(__u32) * ndevices);
		return ndevices;
	}
	dir = opendir("/sys/block");
	if (!dir)
		return 0;
	while (n < MAX_DISKS && (entry = readdir(dir))) {
		unsigned int major, minor;
		char path[512];
		FILE *file;

		if (entry->d_name[0] == '.')
			continue;
		if (!device_sectors(entry->d_name))
			continue; /* no medium: an unbound loop device, an empty reader */
		snprintf(path, sizeof(path), "/sys/block/%s/dev", entry->d_name);
		file = fopen(path, "r");
		if (!file)
			continue;
		if (fscanf(file, "%u:%u", &major, &minor) == 2)
			disks[n++] = (major << 20) | minor;
		fclose(file);
	}
	closedir(dir);
	return n;
}

/* Make the read and write entries of the `disks` from here, where a failed allocation can
 * wait and try again: allocated from the BPF program at a device's first I/O, a burst of
 * first I/Os (a 2,000-disk host starting) outruns the kernel's allocation cache and its I/Os
 * would be dropped (measured: 784 lost). Other operations and disks that appear later are
 * still allocated by the program (a failure is counted under histogram_map_full). */
static void prepare_entries(struct biolat_bpf *skel, const __u32 *disks, int ndisks)
{
	int fd = bpf_map__fd(skel->maps.stats);
	void *zero = calloc(ncpus, sizeof(struct stats));

	if (!zero)
		return;
	for (int i = 0; i < ndisks; i++) {
		struct stats_key key = { disks[i], 0 };

		for (key.op = 0; key.op < 2; key.op++) { /* REQ_OP_READ, REQ_OP_WRITE */
			/* The kernel's allocation cache is refilled behind us (irq_work): ENOMEM
			 * here means "again in a moment", not out of memory. */
			for (int tries = 0; tries < 1000; tries++) {
				if (!bpf_map_update_elem(fd, &key, zero, BPF_NOEXIST) ||
				    errno != ENOMEM)
					break;
				usleep(100);
			}
		}
	}
	free(zero);
}

/* What the map `map` will be charged with `used` entries made (its own size otherwise). */
static __u64 map_estimate(const struct kernel_sizes *k, const struct bpf_map *map, int shared,
			  __u32 max_entries, __u64 used)
{
	enum bpf_map_type type = bpf_map__type(map);
	int prealloc = !(bpf_map__map_flags(map) & BPF_F_NO_PREALLOC);
	__u32 key = bpf_map__key_size(map), value = bpf_map__value_size(map);

	switch (type) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
		return hash_bytes(k, ncpus, shared < 0 ? type == BPF_MAP_TYPE_PERCPU_HASH : !shared,
				  prealloc, key, value, max_entries, prealloc ? max_entries : used);
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return array_bytes(k, ncpus, type == BPF_MAP_TYPE_PERCPU_ARRAY,
				   !!(bpf_map__map_flags(map) & BPF_F_MMAPABLE), value, max_entries);
	default:
		return 0;
	}
}

/* Every map's bytes in a layout (`shared`), `stats` holding `capacity` entries of which
 * `used` are made. */
static __u64 maps_estimate(const struct kernel_sizes *k, struct biolat_bpf *skel, int shared,
			   __u32 capacity, __u64 used)
{
	struct bpf_map *map;
	__u64 total = 0;

	bpf_object__for_each_map(map, skel->obj) {
		if (map == skel->maps.stats)
			total += map_estimate(k, map, shared, capacity, used);
		else
			total += map_estimate(k, map, -1, bpf_map__max_entries(map), 0);
	}
	return total;
}

/* The most entries `stats` may hold in a layout within the budget (its memory grows with the
 * entries made, up to this); 0 when not even one fits. */
static __u32 capacity_within(const struct kernel_sizes *k, struct biolat_bpf *skel, int shared,
			     __u64 budget)
{
	__u32 low = 0, high = MAX_ENTRIES;

	while (low < high) {
		__u32 mid = low + (high - low + 1) / 2;

		if (maps_estimate(k, skel, shared, mid, mid) <= budget)
			low = mid;
		else
			high = mid - 1;
	}
	return low;
}

/* Choose the layout (`forced`: -1 by the budget, 0 per-CPU, 1 shared) and size `stats` for
 * `ndisks` disks, before the maps are made; -1 with the reason said when the budget cannot
 * hold even one entry. */
static int plan_layout(struct biolat_bpf *skel, int ndisks, __u64 budget, int forced)
{
	struct kernel_sizes k = kernel_sizes();
	__u64 wanted = (__u64)ndisks * OPS_PER_DISK, prepared = (__u64)ndisks * 2;
	__u32 capacity;

	layout.budget = budget;
	layout.disks = ndisks;
	for (int shared = 0; shared < 2; shared++)
		layout.needed[shared] = maps_estimate(&k, skel, shared, wanted ? wanted : 1, wanted);
	layout.shared = forced >= 0 ? forced : layout.needed[0] > budget;
	capacity = capacity_within(&k, skel, layout.shared, budget);
	if (!capacity) {
		fprintf(stderr,
			"pinchpoint-biolat: a map budget of %llu bytes cannot hold the recorder's "
			"maps: %s needs at least %llu bytes\n",
			(unsigned long long)budget, layout.shared ? "the shared layout" : "the per-CPU layout",
			(unsigned long long)maps_estimate(&k, skel, layout.shared, 1, 1));
		return -1;
	}
	if (capacity < prepared)
		fprintf(stderr,
			"pinchpoint-biolat: the map budget holds %u entries, fewer than the read and "
			"write entries of %d disks: I/O beyond them is counted as lost "
			"(histogram_map_full)\n",
			capacity, ndisks);
	layout.capacity = capacity;
	layout.estimate = maps_estimate(&k, skel, layout.shared, capacity,
					prepared < capacity ? prepared : capacity);
	bpf_map__set_max_entries(skel->maps.stats, capacity);
	if (layout.shared)
		bpf_map__set_type(skel->maps.stats, BPF_MAP_TYPE_HASH);
	skel->rodata->shared_layout = layout.shared;
	return 0;
}

/* The layout and what every map takes now (memlock, as `bpftool map show` prints it). */
static void print_memory(struct biolat_bpf *skel)
{
	struct bpf_map *map;
	__u64 total = 0;
	int first = 1;

	printf("\"memory\":{\"layout\":\"%s\",\"cpus\":%d,\"budget_bytes\":%llu,"
	       "\"capacity\":%u,\"disks\":%d,\"needed_bytes\":{\"percpu\":%llu,\"shared\":%llu},"
	       "\"estimated_bytes\":%llu,\"maps\":{",
	       layout.shared ? "shared" : "percpu", ncpus, (unsigned long long)layout.budget,
	       layout.capacity, layout.disks, (unsigned long long)layout.needed[0],
	       (unsigned long long)layout.needed[1], (unsigned long long)layout.estimate);
	bpf_object__for_each_map(map, skel->obj) {
		__u64 bytes = map_memlock(bpf_map__fd(map));

		printf("%s\"%s\":%llu", first ? "" : ",", bpf_map__name(map), (unsigned long long)bytes);
		total += bytes;
		first = 0;
	}
	printf("},\"bytes\":%llu}", (unsigned long long)total);
}

static void emit(struct biolat_bpf *skel, __u64 started, int final)
{
	printf("{\"format\":1,\"final\":%s,\"elapsed_ns\":%llu,\"sub_buckets\":%d,", final ? "true" : "false",
	       (unsigned long long)(now_ns() - started), SUB_BUCKETS);
	print_programs(skel);
	printf(",");
	print_drops(skel);
	printf(",");
	print_memory(skel);
	printf(",");
	if (print_stats(skel))
		printf("\"totals\":[],\"buckets\":[],\"error\":\"out of memory\"");
	printf("}\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "device", required_argument, NULL, 'd' },
		{ "stats", no_argument, NULL, 'S' },
		{ "budget-bytes", required_argument, NULL, 'b' },
		{ "layout", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	static __u32 devices[MAX_DEVICES], disks[MAX_DISKS];
	int ndevices = 0, ndisks, want_stats = 0, stats_fd = -1, forced = -1, opt, err;
	unsigned long long budget = DEFAULT_BUDGET_BYTES;
	pid_t parent;
	double seconds = -1, interval = 0;
	struct biolat_bpf *skel;
	__u64 started, next_emit, deadline;

	signal(SIGUSR1, on_ask); /* before anything else: asked while loading is asked at attach */
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		unsigned int major, minor;
		char *end;

		switch (opt) {
		case 's':
			seconds = strtod(optarg, &end);
			if (*end || seconds < 0)
				usage();
			break;
		case 'i':
			interval = strtod(optarg, &end);
			if (*end || interval <= 0)
				usage();
			break;
		case 'd':
			if (ndevices == MAX_DEVICES || sscanf(optarg, "%u:%u", &major, &minor) != 2)
				usage();
			devices[ndevices++] = (major << 20) | minor;
			break;
		case 'S':
			want_stats = 1;
			break;
		case 'b':
			errno = 0;
			budget = strtoull(optarg, &end, 10);
			if (*end || errno || !budget || optarg[0] == '-')
				usage();
			break;
		case 'l':
			if (!strcmp(optarg, "auto"))
				forced = -1;
			else if (!strcmp(optarg, "percpu"))
				forced = 0;
			else if (!strcmp(optarg, "shared"))
				forced = 1;
			else
				usage();
			break;
		default:
			usage();
		}
	}
	if (seconds < 0 || optind != argc)
		usage();
	/* Never outlive the process that started us (a service killed with SIGKILL). */
	parent = getppid();
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		return 1;
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0 || ncpus > MAX_CPUS) {
		fprintf(stderr, "pinchpoint-biolat: cannot count the CPUs\n");
		return 1;
	}
	libbpf_set_print(quiet_print);
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	skel = biolat_bpf__open();
	if (!skel) {
		fprintf(stderr, "pinchpoint-biolat: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->filter_devices = ndevices > 0;
	ndisks = collect_disks(devices, ndevices, disks);
	if (plan_layout(skel, ndisks, budget, forced)) {
		err = 2;
		goto out;
	}
	err = biolat_bpf__load(skel);
	if (err) {
		fprintf(stderr, "pinchpoint-biolat: cannot load the BPF programs: %s\n", strerror(-err));
		goto out;
	}
	for (int i = 0; i < ndevices; i++) {
		__u8 one = 1;
		bpf_map_update_elem(bpf_map__fd(skel->maps.devices), &devices[i], &one, BPF_ANY);
	}
	prepare_entries(skel, disks, ndisks);
	if (want_stats) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0)
			fprintf(stderr, "pinchpoint-biolat: kernel BPF statistics unavailable: %s\n",
				strerror(errno));
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	err = biolat_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "pinchpoint-biolat: cannot attach to the block tracepoints: %s\n",
			strerror(-err));
		goto out;
	}
	started = now_ns(); /* attach is synchronous: the window starts here */
	skel->bss->window_start = started;
	fprintf(stderr, "pinchpoint-biolat: attached\n");
	deadline = seconds > 0 ? started + (__u64)(seconds * 1e9) : 0;
	next_emit = interval > 0 ? started + (__u64)(interval * 1e9) : 0;
	while (!stopping) {
		__u64 now = now_ns(), wake = deadline;

		if (deadline && now >= deadline)
			break;
		if (asked) {
			asked = 0;
			emit(skel, started, 0);
		}
		if (next_emit && now >= next_emit) {
			emit(skel, started, 0);
			next_emit += (__u64)(interval * 1e9);
		}
		if (next_emit && (!wake || next_emit < wake))
			wake = next_emit;
		if (!wake)
			wake = now + 1000000000ull;
		if (wake > now && !asked) {
			__u64 d = wake - now;
			struct timespec ts = { .tv_sec = d / 1000000000ull, .tv_nsec = d % 1000000000ull };
			nanosleep(&ts, NULL);
		}
	}
	biolat_bpf__detach(skel); /* the window ends here: nothing counted after */
	emit(skel, started, 1);
out:
	if (stats_fd >= 0)
		close(stats_fd);
	biolat_bpf__destroy(skel);
	return err == 2 ? 2 : err ? 1 : 0;
}
