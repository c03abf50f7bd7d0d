/* power_redfish.h -- the parts of the Redfish source (power_redfish.c) that
 * need no BMC: where the watts are in a resource, and ISO 8601 durations.
 *
 * Two places hold a chassis' input power (DMTF DSP0268): the newer
 * EnvironmentMetrics resource, PowerWatts.Reading (a SensorPowerExcerpt),
 * and the older Power resource, PowerControl[].PowerConsumedWatts, with the
 * span of its own min/max/average in PowerControl[].PowerMetrics.
 * IntervalInMin. A Sensor says how often it is read in SensingInterval, an
 * ISO 8601 duration ("PT1S"). */
#ifndef AOPS_POWER_REDFISH_H
#define AOPS_POWER_REDFISH_H

#include <jansson.h>
#include <stddef.h>

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

#endif
