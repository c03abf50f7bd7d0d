/* dcmi.h -- the DCMI "Get Power Reading" command: the request's bytes and
 * the response's fields, as the DCMI specification (v1.5, section 6.6.1,
 * table 6-16) lays them out. Pure functions, so the encoding is tested
 * against the specification's byte layout without a BMC; power_ipmi.c sends
 * the bytes in band (/dev/ipmi0) or over RMCP+.
 *
 * Request: NetFn 2Ch (group extension), Cmd 02h, data DCh (the DCMI group),
 * the mode (01h: system power statistics), mode attributes 00h, 00h.
 * Response: completion code, DCh, then little-endian: current, minimum,
 * maximum and average watts (2 bytes each), an IPMI timestamp and the
 * statistics reporting period in milliseconds (4 bytes each), and the power
 * reading state (bit 6: measurement active). */
#ifndef AOPS_DCMI_H
#define AOPS_DCMI_H

#include <stddef.h>
#include <stdint.h>

#define DCMI_NETFN 0x2C
#define DCMI_CMD_GET_POWER_READING 0x02
#define DCMI_GROUP 0xDC
#define DCMI_MODE_SYSTEM_POWER 0x01

struct dcmi_power {
    unsigned current_w, min_w, max_w, avg_w;
    uint32_t timestamp; /* seconds since 1970 in the BMC's clock */
    uint32_t period_ms; /* the span min/max/average cover */
    int active;         /* the BMC is measuring */
};

/* The request's data bytes (after NetFn and Cmd) into data; returns their
 * count (4), or 0 when len is too small. */
size_t dcmi_power_request(uint8_t *data, size_t len);

/* Decode a response from its completion code on. 0, or -1 with err: a
 * completion code other than 0 (named), a short answer, another group, or a
 * BMC that says it is not measuring. */
int dcmi_power_decode(const uint8_t *rsp, size_t len, struct dcmi_power *out, char *err,
                      size_t errlen);

/* The IPMI 2.0 name of a completion code ("invalid command" for C1h). */
const char *ipmi_cc_name(uint8_t cc);

#endif
