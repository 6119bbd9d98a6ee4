Rscript --vanilla analysis.R input.csv
