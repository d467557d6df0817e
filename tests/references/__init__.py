"""Independent reference implementations the tests check bacc against (mpmath, closed
forms, long MCMC runs): no code of bacc is used to compute a reference."""
