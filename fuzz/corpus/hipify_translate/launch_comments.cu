k<<<g /* grid */, b, // block
    0>>>(x /* first */, y // last
);
