# commands.gdb - every rb- command on a known state, for run-gdb-tests:
# the shell (/bin/sh; init is pid 1) is about to wait for a line, holding
# the tty's reader mutex. Each command's output is between "rb-test: begin
# NAME" and "rb-test: end NAME" lines.
break read_canon
continue
delete
define rbt
  echo rb-test: begin $arg0\n
end
define rbe
  echo rb-test: end $arg0\n
end
# The shell's program text: the first file mapping of the current task,
# whose page at file index 0 is a page-cache page mapped at its start.
python
t = task_for("")
vma = [v for v in list_entries(task_mm(t)["vmas"], "struct vm_area", "link")
       if u64(v["file"]) and int(v["pgoff"]) == 0][0]
gdb.set_convenience_variable("sh_inode", vma["file"])
gdb.set_convenience_variable("sh_text", vma["start"])
gdb.set_convenience_variable("sh_page", radix_lookup(vma["file"]["mapping"]["tree"], 0))
print("rb-test: sh inode %d text %#x page %#x" % (int(vma["file"]["ino"]),
      u64(vma["start"]), radix_lookup(vma["file"]["mapping"]["tree"], 0)))
end
rbt dmesg
rb-dmesg
rbe dmesg
rbt ps
rb-ps
rbe ps
rbt current
rb-current
rbe current
rbt percpu
rb-percpu ticks all
rbe percpu
rbt page
rb-page $sh_page
rbe page
rbt pagecache
rb-pagecache $sh_inode
rbe pagecache
rbt stats
rb-stats
rbe stats
rbt rcu
rb-rcu
rbe rcu
rbt locks
rb-locks
rbe locks
rbt vma
rb-vma 1
rbe vma
rbt pte
rb-pte $sh_text
rbe pte
# A backtrace from the timer interrupt must reach the interrupted code.
break sched_tick
continue
delete
rbt bt
bt
rbe bt
