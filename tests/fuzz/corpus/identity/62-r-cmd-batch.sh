R CMD BATCH --no-save fit.R fit.Rout
