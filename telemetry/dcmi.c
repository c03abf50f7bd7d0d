/* dcmi.c -- see dcmi.h. */
#include "dcmi.h"

#include <stdio.h>

size_t dcmi_power_request(uint8_t *data, size_t len) {
    if (len < 4)
        return 0;
    data[0] = DCMI_GROUP;
    data[1] = DCMI_MODE_SYSTEM_POWER;
    data[2] = 0x00; /* mode attributes: none for system power statistics */
    data[3] = 0x00; /* reserved */
    return 4;
}

static unsigned le16(const uint8_t *p) {
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

const char *ipmi_cc_name(uint8_t cc) {
    /* IPMI 2.0 table 5-2, generic completion codes. */
    switch (cc) {
    case 0x00:
        return "command completed normally";
    case 0xC0:
        return "node busy";
    case 0xC1:
        return "invalid command";
    case 0xC2:
        return "command invalid for given LUN";
    case 0xC3:
        return "timeout while processing command";
    case 0xC4:
        return "out of space";
    case 0xC5:
        return "reservation cancelled or invalid";
    case 0xC6:
        return "request data truncated";
    case 0xC7:
        return "request data length invalid";
    case 0xC8:
        return "request data field length limit exceeded";
    case 0xC9:
        return "parameter out of range";
    case 0xCA:
        return "cannot return number of requested data bytes";
    case 0xCB:
        return "requested sensor, data, or record not present";
    case 0xCC:
        return "invalid data field in request";
    case 0xCD:
        return "command illegal for specified sensor or record type";
    case 0xCE:
        return "command response could not be provided";
    case 0xCF:
        return "cannot execute duplicated request";
    case 0xD0:
        return "SDR repository in update mode";
    case 0xD1:
        return "device in firmware update mode";
    case 0xD2:
        return "BMC initialization in progress";
    case 0xD3:
        return "destination unavailable";
    case 0xD4:
        return "insufficient privilege level";
    case 0xD5:
        return "command not supported in present state";
    case 0xD6:
        return "command sub-function disabled or unavailable";
    case 0xFF:
        return "unspecified error";
    default:
        return cc >= 0x01 && cc <= 0x7E ? "device-specific (OEM) code" : "command-specific code";
    }
}

int dcmi_power_decode(const uint8_t *rsp, size_t len, struct dcmi_power *out, char *err,
                      size_t errlen) {
    if (len < 1) {
        snprintf(err, errlen, "DCMI Get Power Reading: empty response");
        return -1;
    }
    if (rsp[0] != 0x00) {
        snprintf(err, errlen, "DCMI Get Power Reading: completion code 0x%02x (%s)%s", rsp[0],
                 ipmi_cc_name(rsp[0]),
                 rsp[0] == 0xC1 ? ": this BMC does not implement DCMI power readings" : "");
        return -1;
    }
    if (len < 19) {
        snprintf(err, errlen, "DCMI Get Power Reading: %zu response bytes, 19 expected", len);
        return -1;
    }
    if (rsp[1] != DCMI_GROUP) {
        snprintf(err, errlen, "DCMI Get Power Reading: group 0x%02x in the response, 0xdc expected",
                 rsp[1]);
        return -1;
    }
    out->current_w = le16(rsp + 2);
    out->min_w = le16(rsp + 4);
    out->max_w = le16(rsp + 6);
    out->avg_w = le16(rsp + 8);
    out->timestamp = le32(rsp + 10);
    out->period_ms = le32(rsp + 14);
    out->active = (rsp[18] & 0x40) != 0;
    if (!out->active) {
        snprintf(err, errlen,
                 "DCMI Get Power Reading: the BMC says power measurement is not active (reading "
                 "state 0x%02x)",
                 rsp[18]);
        return -1;
    }
    return 0;
}
