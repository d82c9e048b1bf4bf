# session.gdb - what tests/gdb/run-gdb-tests types into a `make gdb`
# session (run after tools/gdbinit has stopped at kmain). Each
# "rb-test:" line tells the test how far the session got. gdb runs it
# without -batch, as a student's gdb runs: -batch would turn confirmation
# off by itself, hiding whether tools/gdbinit did, and the `quit` at the
# end would wait for a y/n answer if it had not.
# What tools/gdbinit set, as it stands after the first stop.
show scheduler-locking
show confirm
echo rb-test: running\n
# Runs until the test types Ctrl-C (or kills gdb).
continue
python print("rb-test: interrupted, stopped=%s" % gdb.selected_thread().is_stopped())
# The test looks at QEMU while the guest is stopped, then says go.
python
import os, time
go = os.path.join(os.environ["RB_TEST_DIR"], "go")
for _ in range(600):
    if os.path.exists(go):
        break
    time.sleep(0.1)
end
# The guest can go on: the next timer tick stops it again.
break sched_tick
continue
echo rb-test: resumed\n
delete
quit
