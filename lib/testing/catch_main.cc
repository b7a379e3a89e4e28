#define CATCH_CONFIG_MAIN
#include "lib/testing/catch.h"
