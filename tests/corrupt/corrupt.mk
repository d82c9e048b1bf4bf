# corrupt.mk - deliberately damaged ext2 images, one per kind of damage, for
# the kernel tests that check a bad file system gives clean errors, not a
# crash. Included by the Makefile; also works alone (make -f, B=DIR).
#
#   make corrupt-images    build $(B)/corrupt/base.img and one KIND.img for
#                          each kind tools/corrupt-image knows (--help says
#                          what each damages)
#   make corrupt-selftest  build them all in a temporary directory and check
#                          e2fsck passes the base and catches every damage
#
# Needs mkfs.ext2 (and e2fsck, debugfs for the self-test): Debian e2fsprogs.

B ?= build
CORRUPT_B := $(B)/corrupt
CORRUPT_KINDS := bad-magic inode-count-lie blocks-count-lie unknown-incompat \
	unknown-rocompat bad-group-desc block-past-end rec-len-overrun rec-len-zero \
	indirect-cycle indirect-self dir-inode-zero-links inode-bitmap-moved
CORRUPT_IMAGES := $(CORRUPT_KINDS:%=$(CORRUPT_B)/%.img)

.PHONY: corrupt-images corrupt-selftest
corrupt-images: $(CORRUPT_IMAGES) $(CORRUPT_B)/fuzz-base.img

# 4 KiB blocks and a 4 MiB image: one block group, so group 0 is every group.
# The stage is rebuilt from scratch each time: mkfs -d copies whatever is there.
$(CORRUPT_B)/base.img: tools/corrupt-image tests/corrupt/corrupt.mk
	@mkdir -p $(CORRUPT_B)
	$(Q)rm -rf $(CORRUPT_B)/stage $@
	$(Q)tools/corrupt-image stage $(CORRUPT_B)/stage
	$(Q)PATH="$$PATH:/sbin:/usr/sbin" mkfs.ext2 -q -F -b 4096 -I 256 -L corrupt \
		-d $(CORRUPT_B)/stage $@ 4M >/dev/null
	$(if $(Q),@echo "  MKFS  $@")

$(CORRUPT_IMAGES): $(CORRUPT_B)/%.img: $(CORRUPT_B)/base.img tools/corrupt-image
	$(Q)tools/corrupt-image $< $@ $*

# The base of tools/fuzz-images: the same files on a 1.5 MiB disk of two
# groups (256 + 128 blocks), so the descriptors and bitmaps of a second,
# short group are fuzzed too, and forty images load in seconds.
$(CORRUPT_B)/fuzz-base.img: tools/corrupt-image tests/corrupt/corrupt.mk
	@mkdir -p $(CORRUPT_B)
	$(Q)rm -rf $(CORRUPT_B)/fuzz-stage $@
	$(Q)tools/corrupt-image stage $(CORRUPT_B)/fuzz-stage
	$(Q)PATH="$$PATH:/sbin:/usr/sbin" mkfs.ext2 -q -F -b 4096 -I 256 -g 256 -N 64 -L fuzz \
		-d $(CORRUPT_B)/fuzz-stage $@ 1536K >/dev/null
	$(if $(Q),@echo "  MKFS  $@")

corrupt-selftest:
	@MAKE="$(MAKE)" sh tests/corrupt/selftest.sh
