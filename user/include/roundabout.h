/*
 * roundabout.h - Roundabout's own system calls for user programs.
 *
 * Empty for now: the programs in user/ use only the Linux x86-64 system
 * call ABI, so that the same binary runs on Linux and on Roundabout.
 * The call that pins user pages (get_user_pages_fast seen from user
 * space) will be declared here, with its number and its contract.
 */
#ifndef USER_INCLUDE_ROUNDABOUT_H
#define USER_INCLUDE_ROUNDABOUT_H

#endif
