"""roundabout.py - kernel-aware gdb commands for Roundabout.

Loaded by tools/gdbinit.  Each rb- command reads the kernel's own data
structures through gdb's Python API, by the names and types in the kernel's
debug information, so a field that is renamed breaks the command loudly
instead of printing a wrong number.  `help rb` lists them; `help rb-ps`
explains one.  The kernel must be stopped (Ctrl-C, a breakpoint).

  rb-dmesg [N]          the printk log ring (kernel/printk.c), last N lines
  rb-ps                 every task: tid, pid, state, CPU, where it sleeps
  rb-current [CPU]      the task running on this CPU (or on CPU)
  rb-percpu VAR [CPU|all]  a field of struct cpu, or an array[MAX_CPUS]
  rb-page ADDR|PFN      one struct page, flags by name, frozen or not
  rb-pagecache MAPPING  an address_space's radix tree and its pages
  rb-stats              page-cache and gup counters, summed over CPUs
  rb-rcu                grace periods, CPUs owing a quiescent state, callbacks
  rb-locks              locks held (lockdep's held stacks), per CPU and task
  rb-vma [PID]          a process's VMAs
  rb-pte ADDR [PID]     the page-table walk of one address

It also installs an unwinder for the frames kernel/entry.asm builds, so
`bt` inside an interrupt, exception or system call goes on into the code
that was interrupted (kernel/trap.h has the frame's layout).
"""

import gdb
import gdb.unwinder

PAGE_SHIFT = 12
DIRECT_MAP_BASE = 0xffff800000000000
MASK64 = (1 << 64) - 1
RADIX_SHIFT = 6         # RADIX_TREE_MAP_SHIFT, mm/radix-tree.h: 64 slots a node


# ---------------------------------------------------------------- helpers

def var(name, file=None):
    """A kernel variable; file names a static one ('kernel/rcu.c')."""
    expr = "'%s'::%s" % (file, name) if file else name
    try:
        return gdb.parse_and_eval(expr)
    except gdb.error as e:
        raise gdb.GdbError("%s: %s (is build/roundabout.elf loaded?)" % (expr, e))


def typ(name):
    return gdb.lookup_type(name)


def u64(v):
    return int(v) & MASK64


def read_u64(addr):
    mem = gdb.selected_inferior().read_memory(addr, 8)
    return int.from_bytes(bytes(mem), "little")


def cast(addr, type_name):
    """addr as a pointer to type_name, dereferenced."""
    return gdb.Value(addr).cast(typ(type_name).pointer()).dereference()


def offset_of(type_name, field):
    return int(gdb.parse_and_eval("(unsigned long)&((%s *)0)->%s" % (type_name, field)))


def container_of(addr, type_name, field):
    return cast(u64(addr) - offset_of(type_name, field), type_name)


def list_entries(head, type_name, field):
    """The entries of a struct list_head list, as values of type_name."""
    head_addr = u64(head.address)
    node = u64(head["next"])
    seen = 0
    while node != head_addr:
        yield container_of(node, type_name, field)
        node = u64(cast(node, "struct list_head")["next"])
        seen += 1
        if seen > 100000:
            raise gdb.GdbError("list at %#x does not end" % head_addr)


def symbol(addr):
    """'function+0xoff' for a code address, or its hex."""
    try:
        text = gdb.execute("info symbol %#x" % addr, to_string=True)
    except gdb.error:
        return "%#x" % addr
    if text.startswith("No symbol"):
        return "%#x" % addr
    name = text.split(" in section")[0].strip()
    return name.replace(" + ", "+")


def function_file(addr):
    """The source file of the function holding addr, or ''."""
    sal = gdb.find_pc_line(addr)
    return sal.symtab.filename if sal.symtab else ""


def online_cpus():
    return int(var("ncpus", "kernel/smp.c"))


def max_cpus():
    return int(var("sizeof(cpus) / sizeof(cpus[0])"))


def this_cpu_id():
    """The CPU gdb's selected thread is, read through the GS base as the
    kernel does (percpu.h: GS points at its struct cpu).  In user mode GS
    holds the user's base; then the thread number picks the CPU (QEMU
    numbers its CPUs' threads from 1 in APIC-id order)."""
    cpus = u64(var("&cpus[0]"))
    size = typ("struct cpu").sizeof
    try:
        gs = u64(gdb.parse_and_eval("$gs_base"))
    except gdb.error:
        gs = 0
    if cpus <= gs < cpus + size * max_cpus() and (gs - cpus) % size == 0:
        return (gs - cpus) // size
    thread = gdb.selected_thread()
    apic = (thread.num - 1) if thread else 0
    for i in range(online_cpus()):
        if int(var("cpus[%d].apic_id" % i)) == apic:
            return i
    raise gdb.GdbError("cannot tell which CPU thread %d is" % (apic + 1))


def cpu_arg(text, default_this=True):
    """A CPU number from text, or this CPU when text is empty."""
    if not text:
        return this_cpu_id()
    n = int(gdb.parse_and_eval(text))
    if not 0 <= n < online_cpus():
        raise gdb.GdbError("no CPU %d (%d online)" % (n, online_cpus()))
    return n


def flag_names(value, enum_type):
    """The names of the enum's bits set in value, lower case, no prefix."""
    names = []
    for f in typ(enum_type).fields():
        if value >> f.enumval & 1:
            names.append(f.name)
    return names


# ------------------------------------------------------------------ tasks

STATES = {0: "RUNNING", 1: "RUNNABLE", 2: "SLEEPING", 3: "DEAD"}
# Functions that only carry a task into its sleep: "where it sleeps" skips
# them, as Linux's wchan does, to name the caller that decided to wait.
SLEEP_FILES = ("kernel/sched.c", "kernel/wait.c", "kernel/switch.asm")


def slab_objects(cache):
    """Every object in use in a slab cache (mm/slab.c): the objects of its
    partial and full slabs that are not on their slab's freelist."""
    c = cache.dereference()
    stride, per_slab = int(c["stride"]), int(c["objs_per_slab"])
    for lst in ("partial", "full"):
        for head in list_entries(c[lst], "struct page", "lru"):
            pfn = (u64(head.address) - u64(var("mem_map"))) // typ("struct page").sizeof
            base = DIRECT_MAP_BASE + (pfn << PAGE_SHIFT)
            free, f = set(), u64(head["freelist"])
            while f and len(free) <= per_slab:
                free.add(f)
                f = read_u64(f)
            for i in range(per_slab):
                if base + i * stride not in free:
                    yield base + i * stride


def all_tasks():
    """Every struct task: all of them come from the slab cache "task"."""
    return [cast(a, "struct task") for a in slab_objects(var("task_cache", "kernel/sched.c"))]


def task_pid(t):
    return int(t["proc"]["pid"]) if u64(t["proc"]) else None


def task_comm(t):
    if u64(t["proc"]):
        return t["proc"]["comm"].string()
    return t["name"].string()


def sleep_chain(t, depth=12):
    """The return addresses of a switched-out task, innermost first, from
    the frame switch_to left (kernel/switch.asm: kernel_rsp points at r15,
    r14, r13, r12, rbx, rbp, then the return address into __schedule)."""
    sp = u64(t["kernel_rsp"])
    try:
        rbp, pcs = read_u64(sp + 5 * 8), [read_u64(sp + 6 * 8)]
        while rbp and len(pcs) < depth:
            pcs.append(read_u64(rbp + 8))
            rbp = read_u64(rbp)
    except gdb.MemoryError:
        pass
    return [pc for pc in pcs if pc]


def where_sleeps(t):
    """'wait_primitive <- caller' for a sleeping task, '' if not known."""
    pcs = sleep_chain(t)
    inner = ""
    for pc in pcs:
        name = symbol(pc).split("+")[0]
        if function_file(pc).endswith(SLEEP_FILES) or name.startswith("schedule"):
            inner = name
            continue
        return "%s <- %s" % (inner, symbol(pc)) if inner else symbol(pc)
    return inner


def task_row(t):
    state = int(t["state"])
    name = STATES.get(state, str(state))
    if state == 2 and int(t["interruptible"]):
        name = "SLEEPING(i)"
    pid = task_pid(t)
    waits = ""
    if state in (1, 2) and not int(t["on_cpu"]):
        waits = where_sleeps(t)
    if state == 0 and u64(var("cpus[%d].current" % int(t["cpu"]))) == u64(t.address):
        name += "*"
    return "%5d %5s %-11s %3d  %-16s %#x  %s" % (
        int(t["tid"]), pid if pid is not None else "-", name, int(t["cpu"]),
        task_comm(t), u64(t.address), waits)


TASK_HEADER = "  TID   PID STATE       CPU  NAME             TASK                WAITS IN"


class RbPrefix(gdb.Command):
    """Roundabout kernel-aware commands: rb-dmesg, rb-ps, rb-current,
rb-percpu, rb-page, rb-pagecache, rb-stats, rb-rcu, rb-locks, rb-vma,
rb-pte.  `help rb-NAME` explains each (tools/gdb/roundabout.py)."""

    def __init__(self):
        super().__init__("rb", gdb.COMMAND_DATA, prefix=True)


class RbDmesg(gdb.Command):
    """Print the kernel log: rb-dmesg [N]
The ring of kernel/printk.c (log_ring, LOG_SIZE bytes, log_head bytes ever
written) holds every printk, whatever the console level; the oldest text is
overwritten.  With N, only the last N lines.  The <level> prefix of each
line is kept."""

    def __init__(self):
        super().__init__("rb-dmesg", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        ring = var("log_ring", "kernel/printk.c")
        size = int(ring.type.sizeof)
        head = int(var("log_head", "kernel/printk.c"))
        n = min(head, size)
        base = u64(ring.address)
        mem = bytes(gdb.selected_inferior().read_memory(base, size))
        start = (head - n) % size
        text = (mem[start:] + mem[:start])[:n] if n == size else mem[start:start + n]
        lines = text.decode(errors="replace").splitlines()
        if head > size:
            lines = lines[1:]           # the first is cut by the wrap
        if arg.strip():
            lines = lines[-int(arg):]
        gdb.write("\n".join(lines) + "\n")


class RbPs(gdb.Command):
    """List every task: rb-ps
TID, PID (its process; '-' for a kernel thread), state (task.h: RUNNING
on its CPU, * when it is that CPU's current task, RUNNABLE on a run queue, SLEEPING, (i) interruptible, DEAD),
CPU (the one it runs on, or last ran on), name (the process's comm for a
user task), the struct task, and for a task switched out where it waits:
the sleeping primitive and the first caller outside kernel/sched.c and
kernel/wait.c, from the frames on its kernel stack.  Tasks are found where
they all live: the slab cache "task"."""

    def __init__(self):
        super().__init__("rb-ps", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        gdb.write(TASK_HEADER + "\n")
        for t in sorted(all_tasks(), key=lambda t: (int(t["tid"]), int(t["cpu"]))):
            gdb.write(task_row(t) + "\n")


class RbCurrent(gdb.Command):
    """Show the running task and its CPU: rb-current [CPU]
Without CPU, the CPU of gdb's selected thread, found through its GS base
(kernel/percpu.h: %gs:0 is the CPU's struct cpu).  Prints the task's rb-ps
line and the CPU's preemption, interrupt and RCU nesting."""

    def __init__(self):
        super().__init__("rb-current", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        cpu = cpu_arg(arg.strip())
        c = var("cpus[%d]" % cpu)
        t = c["current"]
        gdb.write("cpu%d: preempt_count %d, irq_depth %d, rcu_read_depth %d, "
                  "need_resched %d, ticks %d\n" % (
                      cpu, int(c["preempt_count"]), int(c["irq_depth"]),
                      int(c["rcu_read_depth"]), int(c["need_resched"]), int(c["ticks"])))
        if not u64(t):
            gdb.write("no task yet (before sched_init)\n")
            return
        gdb.write(TASK_HEADER + "\n" + task_row(t.dereference()) + "\n")


class RbPercpu(gdb.Command):
    """Print a per-CPU variable: rb-percpu VAR [CPU|all]
VAR is a field of struct cpu (kernel/percpu.h: current, preempt_count,
ticks, ...) or a kernel array with one element per CPU (rcu_cpus,
pc_stats, cpu_held: a static one is found in any file).  CPU defaults to
this CPU (through GS, as rb-current); 'all' prints every online CPU."""

    def __init__(self):
        super().__init__("rb-percpu", gdb.COMMAND_DATA)

    def element(self, name, cpu):
        if name in [f.name for f in typ("struct cpu").fields()]:
            return var("cpus[%d].%s" % (cpu, name))
        arr = self.array(name)
        return arr[cpu]

    def array(self, name):
        try:
            v = gdb.parse_and_eval(name)
        except gdb.error:
            found = gdb.lookup_static_symbols(name)
            if not found:
                raise gdb.GdbError("no struct cpu field or variable %s" % name)
            v = found[0].value()
        if v.type.strip_typedefs().code != gdb.TYPE_CODE_ARRAY or \
                v.type.range()[1] + 1 != max_cpus():
            raise gdb.GdbError("%s is not a per-CPU array (%s)" % (name, v.type))
        return v

    def invoke(self, arg, from_tty):
        words = arg.split()
        if not words or len(words) > 2:
            raise gdb.GdbError("usage: rb-percpu VAR [CPU|all]")
        name = words[0]
        if len(words) == 2 and words[1] == "all":
            cpus = range(online_cpus())
        else:
            cpus = [cpu_arg(words[1] if len(words) == 2 else "")]
        for cpu in cpus:
            gdb.write("cpu%d: %s = %s\n" % (cpu, name, self.element(name, cpu)))


# ------------------------------------------------------------------ pages

def page_at(arg):
    """A struct page from an address or a PFN: a struct page *, a PFN
    (below max_pfn), a direct-map address, or a physical address."""
    v = gdb.parse_and_eval(arg)
    if v.type.strip_typedefs().code == gdb.TYPE_CODE_PTR and \
            str(v.type.strip_typedefs().target().strip_typedefs()) == "struct page":
        return v.dereference()
    n = u64(v)
    mem_map = u64(var("mem_map"))
    size = typ("struct page").sizeof
    max_pfn = int(var("max_pfn"))
    if mem_map <= n < mem_map + size * max_pfn:
        return cast(mem_map + (n - mem_map) // size * size, "struct page")
    if n < max_pfn:
        pfn = n
    elif DIRECT_MAP_BASE <= n < DIRECT_MAP_BASE + (max_pfn << PAGE_SHIFT):
        pfn = (n - DIRECT_MAP_BASE) >> PAGE_SHIFT
    elif n < max_pfn << PAGE_SHIFT:
        pfn = n >> PAGE_SHIFT
    else:
        raise gdb.GdbError("%#x is no struct page, PFN, direct-map or physical "
                           "address (max_pfn %#x)" % (n, max_pfn))
    return cast(mem_map + pfn * size, "struct page")


def page_pfn(page):
    return (u64(page.address) - u64(var("mem_map"))) // typ("struct page").sizeof


def mapping_owner(mapping):
    """'inode N' when the address_space is an inode's, else its host."""
    host = u64(mapping["host"])
    inode_at = u64(mapping.address) - offset_of("struct inode", "mapping")
    if host == inode_at:
        return "inode %d" % int(cast(host, "struct inode")["ino"])
    return "host %#x" % host


def radix_lookup(root, index):
    """The item at index, walking as radix_tree_lookup does; 0 if none."""
    node = u64(root["rnode"])
    if not node:
        return 0
    shift_bits = RADIX_SHIFT
    height = int(cast(node, "struct radix_tree_node")["height"])
    if index >> (shift_bits * height):
        return 0
    while height > 0:
        n = cast(node, "struct radix_tree_node")
        slot = (index >> (shift_bits * (height - 1))) & ((1 << shift_bits) - 1)
        node = u64(n["slots"][slot])
        if not node:
            return 0
        height -= 1
    return node


def page_line(page):
    flags = flag_names(u64(page["flags"]), "enum pageflags")
    return "pfn %#x ref %d map %d %s" % (
        page_pfn(page), int(page["refcount"]["counter"]),
        int(page["mapcount"]["counter"]), ",".join(f for f in flags) or "-")


class RbPage(gdb.Command):
    """Decode one struct page: rb-page ADDR|PFN
The argument is a struct page pointer, a PFN, a direct-map (kernel)
address or a physical address.  Prints its flags by name (enum pageflags
in mm/page.h), refcount, mapcount, mapping (and the inode that owns it),
index, whether the page is in its mapping's radix tree at that index, and
whether it is frozen: a page-cache page whose count is 0 (eviction froze
it with cmpxchg 2 -> 0, mm/pagecache.h; a speculative get fails on it)."""

    def __init__(self):
        super().__init__("rb-page", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise gdb.GdbError("usage: rb-page ADDR|PFN")
        page = page_at(arg)
        pfn = page_pfn(page)
        flags = u64(page["flags"])
        names = flag_names(flags, "enum pageflags")
        ref = int(page["refcount"]["counter"])
        mapping = u64(page["mapping"])
        gdb.write("page %#x  pfn %#x  phys %#x  virt %#x\n" % (
            u64(page.address), pfn, pfn << PAGE_SHIFT, DIRECT_MAP_BASE + (pfn << PAGE_SHIFT)))
        gdb.write("flags %#x: %s\n" % (flags, " ".join(names) or "(none)"))
        gdb.write("refcount %d  mapcount %d\n" % (ref, int(page["mapcount"]["counter"])))
        if "PG_slab" in names:
            cache = page["slab_cache"]
            gdb.write("slab cache %s (%#x), inuse %d\n" % (
                cache["name"].string() if u64(cache) else "?", u64(cache), int(page["inuse"])))
            return
        if "PG_buddy" in names or "PG_head" in names:
            gdb.write("order %d\n" % int(page["order"]))
        if not mapping:
            gdb.write("mapping NULL (not in a page cache)\n")
            return
        m = cast(mapping, "struct address_space")
        index = int(page["index"])
        gdb.write("mapping %#x (%s)  index %d  private %#x\n" % (
            mapping, mapping_owner(m), index, u64(page["private"])))
        here = radix_lookup(m["tree"], index) == u64(page.address)
        gdb.write("in its mapping's tree at index %d: %s\n" % (index, "yes" if here else "NO"))
        free = "PG_free" in names or "PG_buddy" in names
        if ref == 0 and not free:
            gdb.write("FROZEN: refcount 0 with a mapping (being evicted: "
                      "page_cache_get_speculative fails on it)\n")
        else:
            gdb.write("not frozen\n")


class RbPagecache(gdb.Command):
    """Draw a page cache's radix tree: rb-pagecache MAPPING
MAPPING is an expression for a struct address_space (or a pointer to one),
or for a struct inode (or a pointer): its mapping is used.  Each node is
shown with its height (1: a leaf, whose slots hold pages), its count of
used slots and the index range it covers; each page with its index, PFN,
refcount, mapcount and flags (mm/radix-tree.h, 64 slots a node)."""

    def __init__(self):
        super().__init__("rb-pagecache", gdb.COMMAND_DATA)

    def mapping(self, arg):
        v = gdb.parse_and_eval(arg)
        if v.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
            v = v.dereference()
        name = str(v.type.strip_typedefs())
        if name == "struct inode":
            return v["mapping"]
        if name == "struct address_space":
            return v
        if v.type.strip_typedefs().code == gdb.TYPE_CODE_INT:
            return cast(u64(v), "struct address_space")
        raise gdb.GdbError("%s is neither an address_space nor an inode" % name)

    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise gdb.GdbError("usage: rb-pagecache MAPPING")
        m = self.mapping(arg)
        root = m["tree"]
        gdb.write("mapping %#x (%s): %d pages, tree height %d, %d nodes\n" % (
            u64(m.address), mapping_owner(m), int(m["nrpages"]), int(root["height"]),
            int(root["nodes"])))
        top = u64(root["rnode"])
        if top:
            self.node(top, 0, "  ")

    def node(self, addr, first, indent):
        n = cast(addr, "struct radix_tree_node")
        height, shift = int(n["height"]), RADIX_SHIFT
        span = 1 << (shift * height)
        gdb.write("%snode %#x height %d count %d  indices %d..%d\n" % (
            indent, addr, height, int(n["count"]), first, first + span - 1))
        step = span >> shift
        for i in range(1 << shift):
            slot = u64(n["slots"][i])
            if not slot:
                continue
            if height > 1:
                self.node(slot, first + i * step, indent + "  ")
            else:
                page = cast(slot, "struct page")
                gdb.write("%s  [%d] page %#x %s\n" % (indent, first + i, slot, page_line(page)))


class RbStats(gdb.Command):
    """Print the page-cache and gup counters: rb-stats
The page cache's per-CPU counters (pc_stats in mm/filemap.c; lookups is
hits + misses) summed over
every CPU, the pages in all caches (nr_cached), and get_user_pages_fast's
counters (gup_stats in mm/gup.c: pins on the fast and slow path, and why
the fast walk fell back)."""

    def __init__(self):
        super().__init__("rb-stats", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        pc = var("pc_stats", "mm/filemap.c")
        fields = [f.name for f in pc.type.target().fields()]
        n = pc.type.range()[1] + 1
        gdb.write("page cache (summed over %d CPUs):\n" % online_cpus())
        rows = [(f, [int(pc[c][f]) for c in range(n)]) for f in fields]
        if "lookups" not in fields:	# a lookup counts once: a hit or a miss
            per_cpu = dict(rows)
            rows.insert(0, ("lookups", [h + m for h, m in zip(per_cpu["hits"], per_cpu["misses"])]))
        for f, counts in rows:
            per = " ".join(str(v) for v in counts[:online_cpus()])
            gdb.write("  %-18s %10d   per CPU: %s\n" % (f, sum(counts), per))
        gdb.write("  %-18s %10d\n" % ("pages cached", int(var("nr_cached", "mm/filemap.c")["counter"])))
        gup = var("gup_stats")
        gdb.write("get_user_pages:\n")
        for f in gup.type.fields():
            gdb.write("  %-22s %10d\n" % (f.name, int(gup[f.name])))


def cb_count(lst):
    n, p = 0, u64(lst["head"])
    while p and n < 1000000:
        n += 1
        p = u64(cast(p, "struct rcu_head")["next"])
    return n


class RbRcu(gdb.Command):
    """Show RCU's state: rb-rcu
From kernel/rcu.c (the algorithm is in kernel/rcu.h): the last grace
period started and completed, whether one is in progress, which CPUs still
owe it a quiescent state (qs_needed), and per CPU: idle (the extended
quiescent-state counter is odd), the last grace period it reported, and
its callbacks waiting in each list (next: no grace period yet; wait: for
wait_gp; done: ready to invoke), with the totals queued and invoked."""

    def __init__(self):
        super().__init__("rb-rcu", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        f = "kernel/rcu.c"
        started, completed = int(var("gp_started", f)), int(var("gp_completed", f))
        need = u64(var("qs_needed", f))
        gdb.write("grace period: started %d, completed %d (%s)\n" % (
            started, completed, "in progress" if started != completed else "idle"))
        if started != completed:
            owe = [str(c) for c in range(64) if need >> c & 1]
            gdb.write("CPUs that owe a quiescent state: %s (qs_needed %#x)\n" % (
                " ".join(owe) or "none", need))
        cpus = var("rcu_cpus", f)
        gdb.write("cpu  idle  reported  next  wait(gp)   done  queued  invoked\n")
        for c in range(online_cpus()):
            rc = cpus[c]
            gdb.write("%3d  %4s  %8d  %4d  %4d(%d)  %5d  %6d  %7d\n" % (
                c, "yes" if int(rc["eqs"]) & 1 else "no", int(rc["reported_gp"]),
                cb_count(rc["next"]), cb_count(rc["wait"]), int(rc["wait_gp"]),
                cb_count(rc["done"]), int(rc["cbs_queued"]), int(rc["cbs_invoked"])))


def lock_flags(flags):
    words = []
    if flags & 1:
        words.append("sleeping")
    if flags & 2:
        words.append("read")
    if flags & 4:
        words.append("try")
    return ",".join(words) or "exclusive"


def held_lines(stack):
    classes = var("classes", "kernel/lockdep.c")
    for i in range(int(stack["depth"])):
        h = stack["held"][i]
        cls = classes[int(h["cls"])]
        name = cls["name"].string() if int(h["cls"]) and u64(cls["name"]) else "(untracked)"
        if int(cls["subclass"]):
            name += "/%d" % int(cls["subclass"])
        yield "  %-24s lock %#x  %-9s taken at %s" % (
            name, u64(h["lock"]), lock_flags(int(h["flags"])), symbol(u64(h["site"])))


class RbLocks(gdb.Command):
    """Show the locks held: rb-locks
Lockdep's held-lock stacks (kernel/lockdep.h): spinlocks and rwlocks on
the stack of the CPU that holds them, mutexes, rw-semaphores and page
locks on the stack of the task.  Each lock with its class, address, how
it was taken and the call site.  Empty when lockdep=off."""

    def __init__(self):
        super().__init__("rb-locks", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if not int(var("lockdep_on")):
            gdb.write("lockdep is off: no held locks are recorded\n")
        held = var("cpu_held", "kernel/lockdep.c")
        for c in range(online_cpus()):
            lines = list(held_lines(held[c]))
            gdb.write("cpu%d: %s\n" % (c, "%d held" % len(lines) if lines else "none"))
            for l in lines:
                gdb.write(l + "\n")
        for t in all_tasks():
            lines = list(held_lines(t["lockdep"]))
            if lines:
                gdb.write("task %d %s:\n" % (int(t["tid"]), task_comm(t)))
                for l in lines:
                    gdb.write(l + "\n")


# ------------------------------------------------------------ user memory

def task_for(arg):
    """The task of a pid (or tid), or the current task when arg is empty."""
    if not arg:
        t = var("cpus[%d].current" % this_cpu_id())
        return t.dereference()
    want = int(gdb.parse_and_eval(arg))
    tasks = all_tasks()
    # A process's pid first: a kernel thread's tid can be the same number
    # (the boot thread's 1 is init's pid), and the slab's order decides
    # nothing.
    for t in tasks:
        if task_pid(t) == want:
            return t
    for t in tasks:
        if int(t["tid"]) == want:
            return t
    raise gdb.GdbError("no task with pid %d" % want)


def task_mm(t):
    mm = u64(t["mm"])
    if not mm and u64(t["proc"]):
        mm = u64(t["proc"]["mm"])
    if not mm:
        raise gdb.GdbError("task %d (%s) is a kernel thread: no mm (rb-vma PID)"
                           % (int(t["tid"]), task_comm(t)))
    return cast(mm, "struct mm_struct")


VM_BITS = ((0x1, "r"), (0x2, "w"), (0x4, "x"), (0x8, "s"))


class RbVma(gdb.Command):
    """List a process's VMAs: rb-vma [PID]
The vm_areas of the task's mm (mm/vm.h: mm->vmas, sorted), each with its
range, size, rwxs (s: shared; p: private), the file's inode and the file
page at its start, or [anon].  Without PID, the current task of this CPU."""

    def __init__(self):
        super().__init__("rb-vma", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        t = task_for(arg.strip())
        mm = task_mm(t)
        gdb.write("task %d (%s) mm %#x pml4 %#x\n" % (
            int(t["tid"]), task_comm(t), u64(mm.address), u64(mm["pml4"])))
        for v in list_entries(mm["vmas"], "struct vm_area", "link"):
            fl = u64(v["flags"])
            perm = "".join(c if fl & b else "-" for b, c in VM_BITS[:3])
            perm += "s" if fl & 0x8 else "p"
            what = "[anon]"
            if u64(v["file"]):
                what = "inode %d pgoff %d" % (int(v["file"]["ino"]), int(v["pgoff"]))
            start, end = u64(v["start"]), u64(v["end"])
            gdb.write("  %016x-%016x %s %6dK  %s\n" % (start, end, perm, (end - start) >> 10, what))


PTE_BITS = ((0, "P"), (1, "W"), (2, "U"), (5, "A"), (6, "D"), (7, "PS"), (8, "G"), (63, "NX"))
PTE_ADDR = 0x000ffffffffff000


def pte_flags(e):
    return " ".join(n for b, n in PTE_BITS if e >> b & 1) or "-"


class RbPte(gdb.Command):
    """Walk the page tables for one address: rb-pte ADDR [PID]
Each level (PML4, PDPT, PD, PT) with its index, the entry and its flags
(P W U A D PS G NX); a large page (PS) ends the walk early.  The tables are
the process PID's (its mm->pml4), or without PID the current task's, or
this CPU's CR3 for a kernel thread.  Ends with the physical address and
the struct page (rb-page PFN says more)."""

    def __init__(self):
        super().__init__("rb-pte", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        words = arg.split()
        if not words or len(words) > 2:
            raise gdb.GdbError("usage: rb-pte ADDR [PID]")
        addr = u64(gdb.parse_and_eval(words[0]))
        t = task_for(words[1] if len(words) == 2 else "")
        mm = u64(t["mm"]) or (u64(t["proc"]["mm"]) if u64(t["proc"]) else 0)
        if mm:
            table = u64(cast(mm, "struct mm_struct")["pml4"]) - DIRECT_MAP_BASE
            gdb.write("address %#x in task %d (%s), pml4 phys %#x\n" % (
                addr, int(t["tid"]), task_comm(t), table))
        else:
            table = u64(gdb.parse_and_eval("$cr3")) & PTE_ADDR
            gdb.write("address %#x, this CPU's CR3 %#x\n" % (addr, table))
        for level, name in enumerate(("PML4", "PDPT", "PD", "PT")):
            shift = 39 - 9 * level
            i = (addr >> shift) & 511
            e = read_u64(DIRECT_MAP_BASE + table + 8 * i)
            gdb.write("  %-4s [%3d] %#018x  %s\n" % (name, i, e, pte_flags(e)))
            if not e & 1:
                gdb.write("  not present\n")
                return
            if level in (1, 2) and e >> 7 & 1:
                phys = (e & PTE_ADDR & ~((1 << shift) - 1)) + (addr & ((1 << shift) - 1))
                break
            table = e & PTE_ADDR
        else:
            phys = table + (addr & 0xfff)
        gdb.write("  phys %#x  pfn %#x  struct page %#x\n" % (
            phys, phys >> PAGE_SHIFT,
            u64(var("mem_map")) + (phys >> PAGE_SHIFT) * typ("struct page").sizeof))


# --------------------------------------------------------------- unwinder

class TrapFrameUnwinder(gdb.unwinder.Unwinder):
    """The frame of trap_common, paranoid_common or syscall_entry, as gdb
    sees it when it unwinds out of trap_dispatch or syscall_dispatch: the
    caller's registers are in the struct trap_frame just above the two-word
    fake frame (rbp, rip) that kernel/entry.asm pushes before the call.
    One limit: gdb names a caller frame by pc - 1 (the call instruction),
    so when the interrupted instruction is the first of a function, that
    frame shows as '?? ()' with the line before it.  `info symbol $pc` in
    that frame names it."""

    FAKE_FRAME = 16

    def __init__(self):
        super().__init__("roundabout-trap-frame")
        self.sites = None

    def return_sites(self):
        """{return address after the dispatch call: the stub's start}."""
        sites = {}
        arch = gdb.selected_inferior().architecture()
        for stub in ("trap_common", "paranoid_common", "syscall_entry"):
            try:
                start = u64(gdb.parse_and_eval("(unsigned long)&%s" % stub))
            except gdb.error:
                continue
            insns = arch.disassemble(start, count=40)
            for a, b in zip(insns, insns[1:]):
                if a["asm"].startswith("call") and "dispatch" in a["asm"]:
                    sites[b["addr"]] = start
                    break
        return sites

    def __call__(self, pending):
        if self.sites is None:
            try:
                self.sites = self.return_sites()
            except gdb.error:
                return None
        pc = u64(pending.read_register("rip"))
        if pc not in self.sites:
            return None
        sp = u64(pending.read_register("rsp"))
        tf = cast(sp + self.FAKE_FRAME, "struct trap_frame")
        info = pending.create_unwind_info(FrameId(sp, self.sites[pc]))
        for field in ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
                      "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"):
            info.add_saved_register(field, tf[field])
        info.add_saved_register("eflags", tf["rflags"].cast(typ("unsigned int")))
        return info


class FrameId:
    """What create_unwind_info takes: sp and pc, as gdb.Values."""

    def __init__(self, sp, pc):
        ulong = typ("unsigned long")
        self.sp, self.pc = gdb.Value(sp).cast(ulong), gdb.Value(pc).cast(ulong)


for _cmd in (RbPrefix, RbDmesg, RbPs, RbCurrent, RbPercpu, RbPage, RbPagecache,
             RbStats, RbRcu, RbLocks, RbVma, RbPte):
    _cmd()
gdb.unwinder.register_unwinder(None, TrapFrameUnwinder(), replace=True)
