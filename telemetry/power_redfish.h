/* power_redfish.h -- the parts of the Redfish source (power_redfish.c) that
 * need no BMC: where the watts are in a resource, and ISO 8601 durations.
 *
 * Two places hold a chassis' input power (DMTF DSP0268): the newer
 * EnvironmentMetrics resource, PowerWatts.Reading (a SensorPowerExcerpt),
 * and the older Power resource, PowerControl[].PowerConsumedWatts, with the
 * span of its own min/max/average in PowerControl[].PowerMetrics.
 * IntervalInMin. A Sensor says how often it is read in SensingInterval, an
 * ISO 8601 duration ("PT1S").
 *
 * And the rule that keeps the BMC's credentials on the BMC: every URL the
 * service names (an absolute @odata.id, Links.Sessions, a session's
 * Location, a redirect) is resolved against --bmc with libcurl's URL parser
 * and used only when it has the same scheme, host and port; --bmc itself
 * carries no user or password and gets credentials only over https. */
#ifndef AOPS_POWER_REDFISH_H
#define AOPS_POWER_REDFISH_H

#include <jansson.h>
#include <stddef.h>

struct power_opts;

/* The first PowerControl member with a numeric PowerConsumedWatts, -1 when
 * none has one. */
int redfish_power_member(const json_t *power);

/* Watts from a resource read at each sample: EnvironmentMetrics
 * (envmetrics set: PowerWatts.Reading) or Power (PowerControl[member].
 * PowerConsumedWatts). 0, or -1 with err ("PowerConsumedWatts is null"). */
int redfish_power_value(const json_t *res, int envmetrics, int member, double *watts, char *err,
                        size_t errlen);

/* Seconds in an ISO 8601 duration ("PT0.5S", "PT1M", "P1DT2H"); NAN when
 * it is not one. */
double iso8601_duration_s(const char *s);

/* A response header line ("X-Auth-Token: abc\r\n", len bytes, not
 * NUL-terminated) named name (case-insensitive, without the colon): its
 * value, trimmed, into out and 1; 0 when the line is another header; -1 when
 * the value does not fit in out or holds a control byte (out untouched). */
int redfish_header(const char *line, size_t len, const char *name, char *out, size_t outlen);

/* --bmc and the credentials, before anything runs: 0, or -1 with one line
 * in err. Refused: a user or password in the URL (it would be recorded with
 * the command line in result.json and in the source's detail; err never
 * repeats it), credentials over http:// (they would cross the network in
 * clear), and a Redfish URL libcurl cannot parse. */
int power_bmc_check(const struct power_opts *o, char *err, size_t errlen);

/* ref (an absolute URL, or a reference such as "/redfish/v1/Chassis" or
 * "../Power") resolved against from (an absolute URL; bmc when NULL) into
 * out. 0 when the result has bmc's scheme, host and port (a default port
 * counts as given) and no user or password; -1 with one line in err naming
 * the URL otherwise. */
int redfish_resolve(const char *bmc, const char *from, const char *ref, char *out, size_t outlen,
                    char *err, size_t errlen);

#endif
