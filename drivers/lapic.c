/*
 * lapic.c - local APIC access, IPIs and the per-CPU timer.
 *
 * Register offsets are those of the xAPIC MMIO page; in x2APIC mode the
 * same register is MSR 0x800 + offset/16, and the ICR is one 64-bit MSR.
 */
#include "drivers/lapic.h"
#include "kernel/irq.h"
#include "kernel/time.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/x86.h"
#include "kernel/atomic.h"
#include "mm/mm.h"

#define MSR_APIC_BASE 0x1b
#define APIC_BASE_ENABLE (1UL << 11)
#define APIC_BASE_X2APIC (1UL << 10)

#define REG_ID 0x020
#define REG_TPR 0x080
#define REG_EOI 0x0b0
#define REG_SVR 0x0f0
#define REG_ESR 0x280
#define REG_ICR_LO 0x300
#define REG_ICR_HI 0x310
#define REG_LVT_TIMER 0x320
#define REG_LVT_LINT0 0x350
#define REG_LVT_LINT1 0x360
#define REG_LVT_ERROR 0x370
#define REG_TIMER_INIT 0x380
#define REG_TIMER_CUR 0x390
#define REG_TIMER_DIV 0x3e0

#define SVR_ENABLE (1u << 8)
#define LVT_MASKED (1u << 16)
#define LVT_PERIODIC (1u << 17)
#define ICR_PENDING (1u << 12)
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_FIXED (0u << 8)
#define ICR_NMI (4u << 8)
#define ICR_INIT (5u << 8)
#define ICR_STARTUP (6u << 8)
#define TIMER_DIV_16 0x3

static u8 *mmio;		/* [I] xAPIC register page (shared address, per-CPU contents) */
static bool x2apic;		/* [I] every CPU uses the same mode */
static u64 timer_hz;		/* [I] timer input clock after the divider */

static u32 rd(u32 reg)
{
	if (x2apic)
		return (u32)rdmsr(0x800 + (reg >> 4));
	return __atomic_load_n((u32 *)(mmio + reg), __ATOMIC_RELAXED);
}

static void wr(u32 reg, u32 v)
{
	if (x2apic) {
		wrmsr(0x800 + (reg >> 4), v);
		return;
	}
	/* An uncached MMIO store; the device sees stores in program order. */
	__atomic_store_n((u32 *)(mmio + reg), v, __ATOMIC_RELAXED);
}

static void enable_this_cpu(void)
{
	u64 base = rdmsr(MSR_APIC_BASE) | APIC_BASE_ENABLE;

	if (x2apic)
		base |= APIC_BASE_X2APIC;	/* untested here: TCG has no x2APIC */
	wrmsr(MSR_APIC_BASE, base);
	wr(REG_TPR, 0);				/* accept every priority */
	wr(REG_LVT_TIMER, LVT_MASKED);
	wr(REG_LVT_LINT0, LVT_MASKED);		/* the legacy PIC is unused */
	wr(REG_LVT_ERROR, VEC_LAPIC_ERROR);
	wr(REG_ESR, 0);
	wr(REG_SVR, SVR_ENABLE | VEC_SPURIOUS);
	wr(REG_EOI, 0);
}

void lapic_init_boot(void)
{
	u32 a, b, c, d;

	cpuid(1, 0, &a, &b, &c, &d);
	if (!(d & (1u << 9)))
		panic("lapic: this CPU has no local APIC");
	x2apic = c & (1u << 21);
	if (!x2apic) {
		phys_addr_t pa = rdmsr(MSR_APIC_BASE) & 0xffffff000UL;
		mmio = ioremap(pa, PAGE_SIZE);
		if (!mmio)
			panic("lapic: cannot map the local APIC at %#llx", (unsigned long long)pa);
	}
	enable_this_cpu();
}

void lapic_init_ap(void)
{
	enable_this_cpu();
}

bool lapic_x2apic_mode(void)
{
	return x2apic;
}

u32 lapic_id(void)
{
	return x2apic ? rd(REG_ID) : rd(REG_ID) >> 24;
}

void lapic_eoi(void)
{
	wr(REG_EOI, 0);
}

static void send_icr(u32 apic_id, u32 low)
{
	if (x2apic) {
		wrmsr(0x830, ((u64)apic_id << 32) | low);
		return;
	}
	unsigned long f = irq_save();	/* ICR high then low: not interruptible */
	wr(REG_ICR_HI, apic_id << 24);
	wr(REG_ICR_LO, low);
	while (rd(REG_ICR_LO) & ICR_PENDING)
		cpu_relax();
	irq_restore(f);
}

void lapic_send_ipi(u32 apic_id, u8 vector)
{
	send_icr(apic_id, ICR_FIXED | ICR_LEVEL_ASSERT | vector);
}

void lapic_send_nmi(u32 apic_id)
{
	send_icr(apic_id, ICR_NMI | ICR_LEVEL_ASSERT);
}

void lapic_send_init(u32 apic_id)
{
	send_icr(apic_id, ICR_INIT | ICR_LEVEL_ASSERT);
}

void lapic_send_sipi(u32 apic_id, u8 page)
{
	send_icr(apic_id, ICR_STARTUP | ICR_LEVEL_ASSERT | page);
}

void lapic_timer_calibrate(void)
{
	const u64 us = 10000;

	wr(REG_TIMER_DIV, TIMER_DIV_16);
	wr(REG_LVT_TIMER, LVT_MASKED);		/* one-shot, no interrupt */
	wr(REG_TIMER_INIT, 0xffffffff);
	udelay(us);
	u32 elapsed = 0xffffffff - rd(REG_TIMER_CUR);
	wr(REG_TIMER_INIT, 0);
	WRITE_ONCE(timer_hz, (u64)elapsed * 1000000 / us);
	if (!timer_hz)
		panic("lapic: the timer did not count during calibration");
}

void lapic_timer_start_periodic(unsigned hz)
{
	wr(REG_TIMER_DIV, TIMER_DIV_16);
	wr(REG_LVT_TIMER, LVT_PERIODIC | VEC_TIMER);
	wr(REG_TIMER_INIT, (u32)(READ_ONCE(timer_hz) / hz));
}

u64 lapic_timer_hz(void)
{
	return READ_ONCE(timer_hz);
}
