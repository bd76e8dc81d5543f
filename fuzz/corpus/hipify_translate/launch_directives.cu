k<<<g, b>>>(x,
#if USE_Y
  y
#else
  z
#endif
);
