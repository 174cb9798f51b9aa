#include "CCatalogSupport.h"
