/* The four committed profiles, loaded once, for the fuzz targets that drive
 * a device (model, replay): index 0..3, st20000nm007d, generic-7200, 990pro,
 * ideal.  Aborts if one does not load (a broken checkout, not an input). */
#ifndef PLATTER_FUZZ_PROFILES_H
#define PLATTER_FUZZ_PROFILES_H

#include "hwm.h"

#define FUZZ_PROFILES 4

const HwmProfile *fuzz_profile(unsigned i);

#endif
