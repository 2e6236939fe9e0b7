(echo "abc)
