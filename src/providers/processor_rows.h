/* Processor Information's counters (processor.c), one row each in the row
 * form (pl_rowset.h).  Ids follow Windows' Processor Information where
 * Linux has the quantity (seed 000's table); Linux extras start at 32.
 * Windows ids left out, for want of a Linux source: 16 Parking Status
 * (Linux does not park cores: an offline CPU is no instance), 19 Processor
 * State Flags (Windows' PPM state bits, no Linux counterpart). */
#ifndef PL_PROCESSOR_ROWS_H
#define PL_PROCESSOR_ROWS_H

enum {
    C_PROC = 0, C_USER = 1, C_PRIV = 2, C_INTR = 3, C_DPC = 4, C_IRQT = 5, C_DPCQ = 6, C_DPCR = 7, C_IDLE = 8,
    C_C1 = 9, C_C2 = 10, C_C3 = 11, C_C1T = 12, C_C2T = 13, C_C3T = 14, C_PRIO = 15, C_FREQ = 17,
    C_PMAX = 18, C_CLK = 20, C_AIDLE = 21, C_AIDLEB = 22, C_IBRK = 23, C_PERF = 24, C_PERFB = 25,
    C_UTIL = 26, C_UTILB = 27, C_PUTIL = 28, C_PLIM = 30, C_PLIMF = 31, C_BASE = 32, C_NICE = 33,
    C_IOW = 34, C_STEAL = 35, C_GUEST = 36, C_MAXF = 37, C_BUSY = 38, C_SMIN = 39, C_SMAX = 40,
    C_HMIN = 41, C_HMAX = 42, C_ISOL = 43, C_VULN = 44, C_CTHR = 45, C_PTHR = 46, C_CTT = 47,
    C_PTT = 48
};

/* Every value is the collect's own (the idle-time logic, per-CPU
 * unwrapping, cpufreq, cpuidle, MSRs, throttling): PL_BY_HAND rows.  R4: a
 * 4-byte counter. */
#define PROC_ROWS(R, R4) \
    R(C_PROC, "% Processor Time", "Share of wall-clock time the CPU was not idle: 100 - idle " \
      "and iowait time (/proc/stat) over elapsed time.  The raw value is the idle time in " \
      "100 ns; for node and machine totals the mean over their CPUs.", \
      PERF_100NSEC_TIMER_INV, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_USER, "% User Time", "Share of time in user mode, nice included, guest time excluded " \
      "(/proc/stat user - guest + nice - guest_nice).", \
      PERF_PRECISION_100NS_TIMER, C_BASE, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_PRIV, "% Privileged Time", "Share of time in the kernel, interrupt and softirq time " \
      "included (/proc/stat system + irq + softirq).", \
      PERF_PRECISION_100NS_TIMER, C_BASE, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_INTR, "Interrupts/sec", "Hardware interrupts per second: the CPU's column of " \
      "/proc/interrupts summed over all rows (LOC, RES, CAL, TLB included); _Total from the " \
      "intr line of /proc/stat.", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_DPC, "% DPC Time", "Share of time servicing softirqs (/proc/stat softirq), the Linux " \
      "counterpart of deferred procedure calls.", \
      PERF_PRECISION_100NS_TIMER, C_BASE, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_IRQT, "% Interrupt Time", "Share of time servicing hardware interrupts (/proc/stat " \
      "irq).", \
      PERF_PRECISION_100NS_TIMER, C_BASE, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_DPCQ, "DPCs Queued/sec", "Softirqs raised per second: the CPU's column of " \
      "/proc/softirqs summed; _Total from the softirq line of /proc/stat.", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R4(C_DPCR, "DPC Rate", "Softirqs raised per local timer tick over the interval since " \
      "the query's last collect (its first: since boot), as Windows counts DPCs queued " \
      "between clock ticks: the growth of the CPU's /proc/softirqs column over that of its " \
      "LOC cell in /proc/interrupts (x86); totals the mean.", \
      PERF_COUNTER_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(C_IDLE, "% Idle Time", "Share of time idle, I/O wait included (/proc/stat idle + " \
      "iowait).", \
      PERF_PRECISION_100NS_TIMER, C_BASE, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_C1, "% C1 Time", "Share of wall-clock time in the first idle state after polling " \
      "(cpuidle state1 time); _Total is the mean over CPUs.", \
      PERF_100NSEC_TIMER, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_C2, "% C2 Time", "Share of wall-clock time in cpuidle state2; _Total is the mean " \
      "over CPUs.", \
      PERF_100NSEC_TIMER, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_C3, "% C3 Time", "Share of wall-clock time in cpuidle state3; _Total is the mean " \
      "over CPUs.", \
      PERF_100NSEC_TIMER, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_C1T, "C1 Transitions/sec", "Entries into cpuidle state1 per second (usage).", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_BY_HAND()) \
    R(C_C2T, "C2 Transitions/sec", "Entries into cpuidle state2 per second (usage).", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_BY_HAND()) \
    R(C_C3T, "C3 Transitions/sec", "Entries into cpuidle state3 per second (usage).", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_BY_HAND()) \
    R(C_PRIO, "% Priority Time", "Share of wall-clock time the CPU ran work of normal or " \
      "high priority: 100 - idle, iowait and nice time (/proc/stat idle + iowait + nice - " \
      "guest_nice: Linux's low priority is a positive nice value) over elapsed time; node and " \
      "machine totals the mean over their CPUs.", \
      PERF_100NSEC_TIMER_INV, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_FREQ, "Processor Frequency", "Current frequency in MHz (cpufreq scaling_cur_freq, " \
      "else the cpu MHz line of /proc/cpuinfo); _Total is the mean over CPUs.", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(HERTZ, 1e6, GAUGE), \
      PL_BY_HAND()) \
    R(C_PMAX, "% of Maximum Frequency", "Current frequency as a share of cpuinfo_max_freq " \
      "(needs cpufreq).", \
      PERF_LARGE_RAW_FRACTION, C_MAXF, PERF_DETAIL_NOVICE, 0, PL_U(HERTZ, 1e6, GAUGE), PL_BY_HAND()) \
    R(C_CLK, "Clock Interrupts/sec", "Local timer interrupts per second: the CPU's cell of " \
      "the LOC row of /proc/interrupts (x86; other architectures name their timer row after " \
      "the driver and have no value); node totals and _Total the sum over their CPUs.", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_BY_HAND()) \
    R(C_AIDLE, "Average Idle Time", "Share of the CPU's time spent in its cpuidle states, " \
      "polling included (the time files of sys/devices/system/cpu/cpuN/cpuidle/state0..7, us, " \
      "summed) over Average Idle Time Base; totals weigh CPUs by their time.", \
      PERF_PRECISION_100NS_TIMER, C_AIDLEB, PERF_DETAIL_ADVANCED, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_AIDLEB, "Average Idle Time Base", "The CPU's /proc/stat ticks in 100 ns, as " \
      "Processor Time Base: the base of Average Idle Time.", \
      PERF_PRECISION_TIMESTAMP, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_IBRK, "Idle Break Events/sec", "Exits from idle per second: the usage files of " \
      "sys/devices/system/cpu/cpuN/cpuidle/state0..7 summed (every entry into an idle state " \
      "ends with a break); totals the sum.", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_BY_HAND()) \
    R(C_PERF, "% Processor Performance", "Average speed while running as a share of the " \
      "nominal frequency: 100 x the growth of APERF over that of MPERF (MSRs 0xE8 and 0xE7 " \
      "read from dev/cpu/N/msr: root and the msr module; else no value), weighed by the " \
      "CPU's busy ticks (/proc/stat); above 100 in turbo.  Totals weigh CPUs by their ticks.", \
      PERF_AVERAGE_BULK, C_PERFB, PERF_DETAIL_NOVICE, 0, PL_U(PERCENT, 1, COUNTER), PL_BY_HAND()) \
    R4(C_PERFB, "% Processor Performance Base", "The busy ticks (USER_HZ, /proc/stat) over " \
      "which % Processor Performance was summed: its base.", \
      PERF_AVERAGE_BASE, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_UTIL, "% Processor Utility", "Work done as a share of the CPU's nominal capacity: % " \
      "Busy Time x current / nominal frequency (cpufreq scaling_cur_freq over " \
      "base_frequency, else cpuinfo_max_freq), above 100 when turbo runs; the frequency read " \
      "at each collect stands for the interval before it.  Needs cpufreq; _Total and node " \
      "totals weigh CPUs by their ticks.", \
      PERF_AVERAGE_BULK, C_UTILB, PERF_DETAIL_NOVICE, 0, PL_U(PERCENT, 1, COUNTER), PL_BY_HAND()) \
    R4(C_UTILB, "% Utility Base", "The CPU's ticks (USER_HZ) over which % Processor Utility " \
      "was summed: its base.", \
      PERF_AVERAGE_BASE, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_PUTIL, "% Privileged Utility", "% Processor Utility of kernel time alone: " \
      "privileged ticks (/proc/stat system + irq + softirq) x current / nominal frequency " \
      "(cpufreq scaling_cur_freq over base_frequency, else cpuinfo_max_freq) over the CPU's " \
      "ticks; over % Utility Base.", \
      PERF_AVERAGE_BULK, C_UTILB, PERF_DETAIL_ADVANCED, 0, PL_U(PERCENT, 1, COUNTER), PL_BY_HAND()) \
    R4(C_PLIM, "% Performance Limit", "100 - the share of the CPU's time it was thermally " \
      "throttled, core or package whichever is more (sys/devices/system/cpu/cpuN/" \
      "thermal_throttle/*_throttle_total_time_ms, x86, Linux 5.5+), over the interval since " \
      "the query's last collect (its first: since boot): 100 is no limit, as on Windows.  " \
      "Totals the mean.", \
      PERF_COUNTER_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(PERCENT, 1, GAUGE), PL_BY_HAND()) \
    R4(C_PLIMF, "Performance Limit Flags", "Why % Performance Limit is below 100 in the " \
      "same interval: 1 the core was throttled, 2 its package was (thermal_throttle counts " \
      "and times); totals OR their CPUs' flags.", \
      PERF_COUNTER_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(C_BASE, "Processor Time Base", "Sum of all the CPU's /proc/stat ticks except guest and " \
      "guest_nice (already inside user and nice), in 100 ns: the base of the % counters.", \
      PERF_PRECISION_TIMESTAMP, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_NICE, "% Nice Time", "Share of time in user mode at positive nice, guest_nice " \
      "excluded (/proc/stat nice - guest_nice).", \
      PERF_PRECISION_100NS_TIMER, C_BASE, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_IOW, "% IO Wait Time", "Share of time idle with I/O outstanding (/proc/stat iowait).", \
      PERF_PRECISION_100NS_TIMER, C_BASE, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_STEAL, "% Steal Time", "Share of time a hypervisor ran something else while this " \
      "virtual CPU wanted to run (/proc/stat steal).", \
      PERF_PRECISION_100NS_TIMER, C_BASE, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_GUEST, "% Guest Time", "Share of time running guest virtual CPUs (/proc/stat guest + " \
      "guest_nice); it is also counted in % User Time's source fields.", \
      PERF_PRECISION_100NS_TIMER, C_BASE, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_MAXF, "Maximum Frequency", "cpuinfo_max_freq in MHz: the base of % of Maximum " \
      "Frequency.", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(HERTZ, 1e6, DISCRETE), \
      PL_BY_HAND()) \
    R(C_BUSY, "% Busy Time", "Share of the CPU's ticks spent not idle: user, nice, system, " \
      "irq, softirq and steal ticks of /proc/stat over all its ticks (100 - % Idle Time), as " \
      "mpstat and top count; % Processor Time is the same over wall-clock time.", \
      PERF_PRECISION_100NS_TIMER, C_BASE, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_SMIN, "Scaling Minimum Frequency", "Lowest frequency the cpufreq policy may pick, " \
      "in Hz (sys/devices/system/cpu/cpuN/cpufreq/scaling_min_freq, kHz x 1000); totals the " \
      "mean.", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(HERTZ, 1, GAUGE), \
      PL_BY_HAND()) \
    R(C_SMAX, "Scaling Maximum Frequency", "Highest frequency the cpufreq policy may pick, " \
      "in Hz (cpufreq/scaling_max_freq, kHz x 1000): below the hardware maximum when capped " \
      "by a user, a thermal driver or a power profile; totals the mean.", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(HERTZ, 1, GAUGE), \
      PL_BY_HAND()) \
    R(C_HMIN, "Hardware Minimum Frequency", "Lowest frequency the CPU supports, in Hz " \
      "(cpufreq/cpuinfo_min_freq, kHz x 1000); totals the mean.", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(HERTZ, 1, DISCRETE), \
      PL_BY_HAND()) \
    R(C_HMAX, "Hardware Maximum Frequency", "Highest frequency the CPU supports, in Hz " \
      "(cpufreq/cpuinfo_max_freq, kHz x 1000; Maximum Frequency is the same in MHz); totals " \
      "the mean.", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(HERTZ, 1, DISCRETE), \
      PL_BY_HAND()) \
    R(C_ISOL, "Isolated", "1 when the CPU is kept from the scheduler's load balancing or " \
      "from the timer tick (listed in sys/devices/system/cpu/isolated, isolcpus=, or " \
      "nohz_full, nohz_full=), else 0; totals count their isolated CPUs.", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, DISCRETE), \
      PL_BY_HAND()) \
    R(C_VULN, "Vulnerable", "Number of files of sys/devices/system/cpu/vulnerabilities whose " \
      "text starts with \"Vulnerable\" (the text of each is a fact of _Total: perflib.info); " \
      "_Total only, read at the query's first collect.", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, DISCRETE), \
      PL_BY_HAND()) \
    R(C_CTHR, "Core Throttle Count", "Times the CPU's core entered thermal throttling since " \
      "boot (sys/devices/system/cpu/cpuN/thermal_throttle/core_throttle_count, x86); totals " \
      "the most of their CPUs (siblings share a core).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_BY_HAND()) \
    R(C_PTHR, "Package Throttle Count", "Times the CPU's package entered thermal throttling " \
      "since boot (thermal_throttle/package_throttle_count); totals the most of their CPUs " \
      "(a package's CPUs share it).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_BY_HAND()) \
    R(C_CTT, "% Core Throttled", "Share of wall-clock time the CPU's core was thermally " \
      "throttled (thermal_throttle/core_throttle_total_time_ms, Linux 5.5+); totals the mean.", \
      PERF_100NSEC_TIMER, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND()) \
    R(C_PTT, "% Package Throttled", "Share of wall-clock time the CPU's package was " \
      "thermally throttled (thermal_throttle/package_throttle_total_time_ms, Linux 5.5+); " \
      "totals the mean.", \
      PERF_100NSEC_TIMER, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_BY_HAND())

/* The position of each row in the table, by id (snapshots index by
 * position). */
#define PROC_POS(id, ...) P_##id,
enum { PROC_ROWS(PROC_POS, PROC_POS) PROC_NPOS };
#define PROC_IX(id, ...) [id] = P_##id,

#endif
