
   
# nothing
	
