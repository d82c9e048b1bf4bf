/* monitor.h - a tiny command prompt on the serial console (until user space exists). */
#ifndef KERNEL_MONITOR_H
#define KERNEL_MONITOR_H

/* Read commands from the console forever (exit/poweroff leave QEMU). */
void monitor_run(void) __attribute__((noreturn));

#endif
