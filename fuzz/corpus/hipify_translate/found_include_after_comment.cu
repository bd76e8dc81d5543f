/*
*/#include gridDim