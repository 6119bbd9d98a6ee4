timeout -s INT 23h nice -n 10 stdbuf -oL nohup ./longrun &
