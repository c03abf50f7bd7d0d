/* freeipmi_abi.h -- the part of FreeIPMI's libfreeipmi (1.x, soname 17) that
 * --bmc ipmi:// uses, declared here because the harness loads the library
 * with dlopen only when asked to: a build without FreeIPMI's headers has the
 * source, and the harness binary (which the docker runtime also runs inside
 * its worker image) needs no libfreeipmi to start. The values are FreeIPMI's
 * (freeipmi/api/ipmi-api.h, freeipmi/spec/ipmi-privilege-level-spec.h);
 * tests/unit/test_power.c checks them against its headers where they are
 * installed. */
#ifndef AOPS_FREEIPMI_ABI_H
#define AOPS_FREEIPMI_ABI_H

#include <stdint.h>

#define FI_SONAME "libfreeipmi.so.17"

#define FI_PRIVILEGE_LEVEL_USER 0x02
#define FI_PRIVILEGE_LEVEL_OPERATOR 0x03
#define FI_PRIVILEGE_LEVEL_ADMIN 0x04

#define FI_WORKAROUND_FLAGS_DEFAULT 0x00000000u
#define FI_WORKAROUND_FLAGS_OUTOFBAND_2_0_OPEN_SESSION_PRIVILEGE 0x00000010u
#define FI_FLAGS_DEFAULT 0x00000000u

#define FI_ERR_USERNAME_INVALID 4
#define FI_ERR_PASSWORD_INVALID 5
#define FI_ERR_PRIVILEGE_LEVEL_CANNOT_BE_OBTAINED 8

typedef struct ipmi_ctx *fi_ctx_t;

/* The functions, resolved by name from the library. */
struct freeipmi {
    void *dl;
    fi_ctx_t (*ctx_create)(void);
    int (*ctx_open_outofband_2_0)(fi_ctx_t, const char *hostname, const char *username,
                                  const char *password, const unsigned char *k_g,
                                  unsigned int k_g_len, uint8_t privilege_level,
                                  uint8_t cipher_suite_id, unsigned int session_timeout,
                                  unsigned int retransmission_timeout,
                                  unsigned int workaround_flags, unsigned int flags);
    int (*cmd_raw)(fi_ctx_t, uint8_t lun, uint8_t net_fn, const void *buf_rq,
                   unsigned int buf_rq_len, void *buf_rs, unsigned int buf_rs_len);
    int (*ctx_errnum)(fi_ctx_t);
    char *(*ctx_errormsg)(fi_ctx_t);
    int (*ctx_close)(fi_ctx_t);
    void (*ctx_destroy)(fi_ctx_t);
};

#endif
