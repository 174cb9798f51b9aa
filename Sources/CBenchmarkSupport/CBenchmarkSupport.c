#include "CBenchmarkSupport.h"
