#include "tap.h"
int main (void)
{
    plan_no_plan ();
    ok (1, "placeholder");
    return done_testing ();
}
