#include "lib/testing/catch.h"
